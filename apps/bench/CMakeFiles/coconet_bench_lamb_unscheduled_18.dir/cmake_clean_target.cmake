file(REMOVE_RECURSE
  "libcoconet_bench_lamb_unscheduled_18.a"
)
