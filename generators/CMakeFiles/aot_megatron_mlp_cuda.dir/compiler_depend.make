# Empty compiler generated dependencies file for aot_megatron_mlp_cuda.
# This may be replaced when dependencies are built.
