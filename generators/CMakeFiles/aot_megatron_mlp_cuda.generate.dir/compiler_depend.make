# Empty custom commands generated dependencies file for aot_megatron_mlp_cuda.generate.
# This may be replaced when dependencies are built.
