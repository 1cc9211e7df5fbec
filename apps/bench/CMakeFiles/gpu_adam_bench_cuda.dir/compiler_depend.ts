# CMAKE generated file: DO NOT EDIT!
# Timestamp file for compiler generated dependencies management for gpu_adam_bench_cuda.
