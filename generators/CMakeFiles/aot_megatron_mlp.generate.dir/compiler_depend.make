# Empty custom commands generated dependencies file for aot_megatron_mlp.generate.
# This may be replaced when dependencies are built.
