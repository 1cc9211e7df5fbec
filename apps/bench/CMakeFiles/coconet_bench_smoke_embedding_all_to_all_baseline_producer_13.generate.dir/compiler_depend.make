# Empty custom commands generated dependencies file for coconet_bench_smoke_embedding_all_to_all_baseline_producer_13.generate.
# This may be replaced when dependencies are built.
