file(REMOVE_RECURSE
  "libcoconet_bench_adam_unscheduled_16.a"
)
