# Empty dependencies file for aot_megatron_mlp.
# This may be replaced when dependencies are built.
