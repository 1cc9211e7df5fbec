file(REMOVE_RECURSE
  "libcoconet_bench_gemv_all_reduce_baseline_producer_20.a"
)
