file(REMOVE_RECURSE
  "libcoconet_bench_embedding_all_to_all_coconet_22.a"
)
