file(REMOVE_RECURSE
  "libcoconet_bench_smoke_adam_unscheduled_12.a"
)
