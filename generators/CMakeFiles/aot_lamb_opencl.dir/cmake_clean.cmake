file(REMOVE_RECURSE
  "CMakeFiles/aot_lamb_opencl.dir/aot_lamb_opencl.coconet/aot_lamb_opencl.cpp.o"
  "CMakeFiles/aot_lamb_opencl.dir/aot_lamb_opencl.coconet/aot_lamb_opencl.cpp.o.d"
  "libaot_lamb_opencl.a"
  "libaot_lamb_opencl.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/aot_lamb_opencl.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
