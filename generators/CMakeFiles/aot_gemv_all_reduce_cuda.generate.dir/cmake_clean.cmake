file(REMOVE_RECURSE
  "CMakeFiles/aot_gemv_all_reduce_cuda.generate"
  "aot_gemv_all_reduce_cuda.coconet/aot_gemv_all_reduce_cuda.cpp"
  "aot_gemv_all_reduce_cuda.coconet/aot_gemv_all_reduce_cuda.h"
  "aot_gemv_all_reduce_cuda.coconet/aot_gemv_all_reduce_cuda_halide.a"
)

# Per-language clean rules from dependency scanning.
foreach(lang )
  include(CMakeFiles/aot_gemv_all_reduce_cuda.generate.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
