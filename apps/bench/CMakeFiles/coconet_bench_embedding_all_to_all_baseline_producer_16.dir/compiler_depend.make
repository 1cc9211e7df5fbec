# Empty compiler generated dependencies file for coconet_bench_embedding_all_to_all_baseline_producer_16.
# This may be replaced when dependencies are built.
