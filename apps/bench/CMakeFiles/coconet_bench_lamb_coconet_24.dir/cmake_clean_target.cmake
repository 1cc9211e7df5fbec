file(REMOVE_RECURSE
  "libcoconet_bench_lamb_coconet_24.a"
)
