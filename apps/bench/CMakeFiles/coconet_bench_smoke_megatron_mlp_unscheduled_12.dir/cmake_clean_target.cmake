file(REMOVE_RECURSE
  "libcoconet_bench_smoke_megatron_mlp_unscheduled_12.a"
)
