# Empty custom commands generated dependencies file for coconet_bench_embedding_all_to_all_coconet_18.generate.
# This may be replaced when dependencies are built.
