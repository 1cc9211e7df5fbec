# Empty custom commands generated dependencies file for coconet_bench_smoke_megatron_mlp_baseline_epilogue_12.generate.
# This may be replaced when dependencies are built.
