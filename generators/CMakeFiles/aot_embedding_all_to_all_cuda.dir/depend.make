# Empty dependencies file for aot_embedding_all_to_all_cuda.
# This may be replaced when dependencies are built.
