# CMAKE generated file: DO NOT EDIT!
# Timestamp file for custom commands dependencies management for coconet_bench_embedding_all_to_all_baseline_producer_22.generate.
