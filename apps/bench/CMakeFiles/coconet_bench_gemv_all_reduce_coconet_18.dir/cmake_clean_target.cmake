file(REMOVE_RECURSE
  "libcoconet_bench_gemv_all_reduce_coconet_18.a"
)
