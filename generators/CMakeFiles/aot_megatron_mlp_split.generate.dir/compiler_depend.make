# Empty custom commands generated dependencies file for aot_megatron_mlp_split.generate.
# This may be replaced when dependencies are built.
