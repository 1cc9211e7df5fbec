# Empty dependencies file for coconet_bench_embedding_all_to_all_coconet_18.
# This may be replaced when dependencies are built.
