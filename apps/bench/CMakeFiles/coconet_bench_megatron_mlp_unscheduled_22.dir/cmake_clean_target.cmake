file(REMOVE_RECURSE
  "libcoconet_bench_megatron_mlp_unscheduled_22.a"
)
