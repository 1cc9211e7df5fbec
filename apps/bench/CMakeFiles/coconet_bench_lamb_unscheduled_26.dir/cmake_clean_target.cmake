file(REMOVE_RECURSE
  "libcoconet_bench_lamb_unscheduled_26.a"
)
