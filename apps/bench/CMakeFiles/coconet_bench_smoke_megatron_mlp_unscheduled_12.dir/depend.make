# Empty dependencies file for coconet_bench_smoke_megatron_mlp_unscheduled_12.
# This may be replaced when dependencies are built.
