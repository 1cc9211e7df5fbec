file(REMOVE_RECURSE
  "libcoconet_bench_smoke_gemv_all_reduce_coconet_13.a"
)
