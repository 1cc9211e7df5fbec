file(REMOVE_RECURSE
  "libcoconet_bench_smoke_lamb_unscheduled_12.a"
)
