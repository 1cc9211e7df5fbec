file(REMOVE_RECURSE
  "libcoconet_bench_embedding_all_to_all_baseline_producer_20.a"
)
