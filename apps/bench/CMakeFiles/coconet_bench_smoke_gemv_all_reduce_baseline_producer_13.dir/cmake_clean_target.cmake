file(REMOVE_RECURSE
  "libcoconet_bench_smoke_gemv_all_reduce_baseline_producer_13.a"
)
