file(REMOVE_RECURSE
  "CMakeFiles/aot_gemm_all_to_all_cuda.generate"
  "aot_gemm_all_to_all_cuda.coconet/aot_gemm_all_to_all_cuda.cpp"
  "aot_gemm_all_to_all_cuda.coconet/aot_gemm_all_to_all_cuda.h"
  "aot_gemm_all_to_all_cuda.coconet/aot_gemm_all_to_all_cuda_halide.a"
)

# Per-language clean rules from dependency scanning.
foreach(lang )
  include(CMakeFiles/aot_gemm_all_to_all_cuda.generate.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
