# Empty dependencies file for aot_megatron_partial_autoscheduled.
# This may be replaced when dependencies are built.
