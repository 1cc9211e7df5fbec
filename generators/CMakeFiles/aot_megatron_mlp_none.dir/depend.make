# Empty dependencies file for aot_megatron_mlp_none.
# This may be replaced when dependencies are built.
