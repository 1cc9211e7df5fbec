# Empty dependencies file for aot_megatron_mlp_none_opencl.
# This may be replaced when dependencies are built.
