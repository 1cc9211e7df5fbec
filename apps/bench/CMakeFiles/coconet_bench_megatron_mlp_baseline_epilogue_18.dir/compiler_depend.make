# Empty compiler generated dependencies file for coconet_bench_megatron_mlp_baseline_epilogue_18.
# This may be replaced when dependencies are built.
