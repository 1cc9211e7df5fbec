file(REMOVE_RECURSE
  "libaot_embedding_all_to_all.a"
)
