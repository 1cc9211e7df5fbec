# CMAKE generated file: DO NOT EDIT!
# Timestamp file for custom commands dependencies management for coconet_bench_smoke_megatron_mlp_baseline_partial_12.generate.
