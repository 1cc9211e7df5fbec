# Empty custom commands generated dependencies file for aot_lamb_cuda.generate.
# This may be replaced when dependencies are built.
