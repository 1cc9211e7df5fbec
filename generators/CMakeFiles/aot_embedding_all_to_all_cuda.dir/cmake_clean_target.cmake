file(REMOVE_RECURSE
  "libaot_embedding_all_to_all_cuda.a"
)
