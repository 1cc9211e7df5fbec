file(REMOVE_RECURSE
  "CMakeFiles/aot_adam_opencl.dir/aot_adam_opencl.coconet/aot_adam_opencl.cpp.o"
  "CMakeFiles/aot_adam_opencl.dir/aot_adam_opencl.coconet/aot_adam_opencl.cpp.o.d"
  "libaot_adam_opencl.a"
  "libaot_adam_opencl.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/aot_adam_opencl.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
