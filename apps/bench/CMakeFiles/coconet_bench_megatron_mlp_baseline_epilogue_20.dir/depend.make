# Empty dependencies file for coconet_bench_megatron_mlp_baseline_epilogue_20.
# This may be replaced when dependencies are built.
