file(REMOVE_RECURSE
  "CMakeFiles/aot_gemm_all_to_all_opencl.dir/aot_gemm_all_to_all_opencl.coconet/aot_gemm_all_to_all_opencl.cpp.o"
  "CMakeFiles/aot_gemm_all_to_all_opencl.dir/aot_gemm_all_to_all_opencl.coconet/aot_gemm_all_to_all_opencl.cpp.o.d"
  "libaot_gemm_all_to_all_opencl.a"
  "libaot_gemm_all_to_all_opencl.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/aot_gemm_all_to_all_opencl.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
