# Empty compiler generated dependencies file for aot_lamb_cuda.
# This may be replaced when dependencies are built.
