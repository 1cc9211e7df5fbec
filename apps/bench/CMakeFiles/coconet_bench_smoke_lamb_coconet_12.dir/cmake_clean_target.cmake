file(REMOVE_RECURSE
  "libcoconet_bench_smoke_lamb_coconet_12.a"
)
