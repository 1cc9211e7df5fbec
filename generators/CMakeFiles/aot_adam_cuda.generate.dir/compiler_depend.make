# Empty custom commands generated dependencies file for aot_adam_cuda.generate.
# This may be replaced when dependencies are built.
