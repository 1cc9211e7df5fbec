# Empty custom commands generated dependencies file for coconet_bench_megatron_mlp_baseline_epilogue_18.generate.
# This may be replaced when dependencies are built.
