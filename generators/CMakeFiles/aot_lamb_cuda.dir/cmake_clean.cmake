file(REMOVE_RECURSE
  "CMakeFiles/aot_lamb_cuda.dir/aot_lamb_cuda.coconet/aot_lamb_cuda.cpp.o"
  "CMakeFiles/aot_lamb_cuda.dir/aot_lamb_cuda.coconet/aot_lamb_cuda.cpp.o.d"
  "libaot_lamb_cuda.a"
  "libaot_lamb_cuda.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/aot_lamb_cuda.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
