# Empty dependencies file for aot_megatron_mlp_split_opencl.
# This may be replaced when dependencies are built.
