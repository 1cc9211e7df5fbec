# Empty custom commands generated dependencies file for coconet_bench_megatron_mlp_baseline_partial_22.generate.
# This may be replaced when dependencies are built.
