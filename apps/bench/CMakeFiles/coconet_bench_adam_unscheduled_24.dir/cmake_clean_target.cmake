file(REMOVE_RECURSE
  "libcoconet_bench_adam_unscheduled_24.a"
)
