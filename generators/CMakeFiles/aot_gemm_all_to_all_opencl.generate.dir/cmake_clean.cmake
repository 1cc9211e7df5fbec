file(REMOVE_RECURSE
  "CMakeFiles/aot_gemm_all_to_all_opencl.generate"
  "aot_gemm_all_to_all_opencl.coconet/aot_gemm_all_to_all_opencl.cpp"
  "aot_gemm_all_to_all_opencl.coconet/aot_gemm_all_to_all_opencl.h"
  "aot_gemm_all_to_all_opencl.coconet/aot_gemm_all_to_all_opencl_halide.a"
)

# Per-language clean rules from dependency scanning.
foreach(lang )
  include(CMakeFiles/aot_gemm_all_to_all_opencl.generate.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
