# Empty compiler generated dependencies file for coconet_bench_embedding_all_to_all_coconet_20.
# This may be replaced when dependencies are built.
