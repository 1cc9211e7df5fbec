# Empty custom commands generated dependencies file for aot_megatron_partial_autoscheduled.generate.
# This may be replaced when dependencies are built.
