file(REMOVE_RECURSE
  "libcoconet_bench_adam_unscheduled_26.a"
)
