# Empty dependencies file for gpu_adam_bench_cuda.
# This may be replaced when dependencies are built.
