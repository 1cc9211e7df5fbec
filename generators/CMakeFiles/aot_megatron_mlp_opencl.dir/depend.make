# Empty dependencies file for aot_megatron_mlp_opencl.
# This may be replaced when dependencies are built.
