file(REMOVE_RECURSE
  "libcoconet_bench_lamb_unscheduled_16.a"
)
