file(REMOVE_RECURSE
  "CMakeFiles/gpu_adam_bench_cuda.generate"
  "gpu_adam_bench_cuda.coconet/gpu_adam_bench_cuda.cpp"
  "gpu_adam_bench_cuda.coconet/gpu_adam_bench_cuda.h"
  "gpu_adam_bench_cuda.coconet/gpu_adam_bench_cuda_halide.a"
)

# Per-language clean rules from dependency scanning.
foreach(lang )
  include(CMakeFiles/gpu_adam_bench_cuda.generate.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
