# CMAKE generated file: DO NOT EDIT!
# Timestamp file for custom commands dependencies management for coconet_bench_smoke_embedding_all_to_all_unscheduled_13.generate.
