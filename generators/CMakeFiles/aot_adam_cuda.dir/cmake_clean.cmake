file(REMOVE_RECURSE
  "CMakeFiles/aot_adam_cuda.dir/aot_adam_cuda.coconet/aot_adam_cuda.cpp.o"
  "CMakeFiles/aot_adam_cuda.dir/aot_adam_cuda.coconet/aot_adam_cuda.cpp.o.d"
  "libaot_adam_cuda.a"
  "libaot_adam_cuda.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/aot_adam_cuda.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
