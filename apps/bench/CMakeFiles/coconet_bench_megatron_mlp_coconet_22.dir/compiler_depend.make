# Empty compiler generated dependencies file for coconet_bench_megatron_mlp_coconet_22.
# This may be replaced when dependencies are built.
