file(REMOVE_RECURSE
  "libcoconet_bench_smoke_gemv_all_reduce_unscheduled_13.a"
)
