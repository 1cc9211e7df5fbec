# Empty dependencies file for aot_adam_opencl.
# This may be replaced when dependencies are built.
