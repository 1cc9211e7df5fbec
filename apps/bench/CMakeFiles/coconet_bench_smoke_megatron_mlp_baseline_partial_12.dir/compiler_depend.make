# Empty compiler generated dependencies file for coconet_bench_smoke_megatron_mlp_baseline_partial_12.
# This may be replaced when dependencies are built.
