# Empty compiler generated dependencies file for coconet_bench_megatron_mlp_unscheduled_16.
# This may be replaced when dependencies are built.
