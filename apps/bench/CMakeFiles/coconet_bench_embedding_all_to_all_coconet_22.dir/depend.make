# Empty dependencies file for coconet_bench_embedding_all_to_all_coconet_22.
# This may be replaced when dependencies are built.
