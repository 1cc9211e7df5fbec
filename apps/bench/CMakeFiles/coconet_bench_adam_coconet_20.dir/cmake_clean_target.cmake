file(REMOVE_RECURSE
  "libcoconet_bench_adam_coconet_20.a"
)
