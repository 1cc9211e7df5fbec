file(REMOVE_RECURSE
  "libcoconet_bench_adam_coconet_16.a"
)
