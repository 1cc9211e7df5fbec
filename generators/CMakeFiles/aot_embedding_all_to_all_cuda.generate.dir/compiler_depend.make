# Empty custom commands generated dependencies file for aot_embedding_all_to_all_cuda.generate.
# This may be replaced when dependencies are built.
