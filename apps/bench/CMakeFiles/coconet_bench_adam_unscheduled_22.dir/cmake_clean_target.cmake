file(REMOVE_RECURSE
  "libcoconet_bench_adam_unscheduled_22.a"
)
