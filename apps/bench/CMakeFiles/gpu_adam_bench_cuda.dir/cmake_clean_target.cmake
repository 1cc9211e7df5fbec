file(REMOVE_RECURSE
  "libgpu_adam_bench_cuda.a"
)
