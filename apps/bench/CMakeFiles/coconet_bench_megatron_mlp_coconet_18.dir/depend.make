# Empty dependencies file for coconet_bench_megatron_mlp_coconet_18.
# This may be replaced when dependencies are built.
