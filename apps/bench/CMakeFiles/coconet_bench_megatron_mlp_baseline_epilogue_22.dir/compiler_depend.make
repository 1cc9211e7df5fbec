# Empty compiler generated dependencies file for coconet_bench_megatron_mlp_baseline_epilogue_22.
# This may be replaced when dependencies are built.
