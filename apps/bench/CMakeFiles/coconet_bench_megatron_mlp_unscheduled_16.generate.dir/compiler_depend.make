# Empty custom commands generated dependencies file for coconet_bench_megatron_mlp_unscheduled_16.generate.
# This may be replaced when dependencies are built.
