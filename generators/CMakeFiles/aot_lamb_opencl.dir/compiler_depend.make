# Empty compiler generated dependencies file for aot_lamb_opencl.
# This may be replaced when dependencies are built.
