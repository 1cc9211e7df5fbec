# CMAKE generated file: DO NOT EDIT!
# Timestamp file for custom commands dependencies management for coconet_bench_gemv_all_reduce_baseline_producer_20.generate.
