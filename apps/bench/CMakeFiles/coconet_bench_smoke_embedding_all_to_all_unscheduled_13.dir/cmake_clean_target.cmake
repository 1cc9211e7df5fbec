file(REMOVE_RECURSE
  "libcoconet_bench_smoke_embedding_all_to_all_unscheduled_13.a"
)
