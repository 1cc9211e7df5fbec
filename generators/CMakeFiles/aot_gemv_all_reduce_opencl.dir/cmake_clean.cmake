file(REMOVE_RECURSE
  "CMakeFiles/aot_gemv_all_reduce_opencl.dir/aot_gemv_all_reduce_opencl.coconet/aot_gemv_all_reduce_opencl.cpp.o"
  "CMakeFiles/aot_gemv_all_reduce_opencl.dir/aot_gemv_all_reduce_opencl.coconet/aot_gemv_all_reduce_opencl.cpp.o.d"
  "libaot_gemv_all_reduce_opencl.a"
  "libaot_gemv_all_reduce_opencl.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/aot_gemv_all_reduce_opencl.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
