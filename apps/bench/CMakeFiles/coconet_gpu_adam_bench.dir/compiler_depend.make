# Empty compiler generated dependencies file for coconet_gpu_adam_bench.
# This may be replaced when dependencies are built.
