# Empty custom commands generated dependencies file for gpu_adam_bench_cuda.generate.
# This may be replaced when dependencies are built.
