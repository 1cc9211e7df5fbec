# Empty custom commands generated dependencies file for aot_lamb_opencl.generate.
# This may be replaced when dependencies are built.
