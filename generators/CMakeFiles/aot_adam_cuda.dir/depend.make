# Empty dependencies file for aot_adam_cuda.
# This may be replaced when dependencies are built.
