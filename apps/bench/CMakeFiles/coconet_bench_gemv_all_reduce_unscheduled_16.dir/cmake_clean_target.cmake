file(REMOVE_RECURSE
  "libcoconet_bench_gemv_all_reduce_unscheduled_16.a"
)
