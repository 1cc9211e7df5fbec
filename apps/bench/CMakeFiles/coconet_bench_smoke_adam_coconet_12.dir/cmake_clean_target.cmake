file(REMOVE_RECURSE
  "libcoconet_bench_smoke_adam_coconet_12.a"
)
