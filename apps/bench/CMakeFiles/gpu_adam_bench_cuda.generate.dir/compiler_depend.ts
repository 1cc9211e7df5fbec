# CMAKE generated file: DO NOT EDIT!
# Timestamp file for custom commands dependencies management for gpu_adam_bench_cuda.generate.
