file(REMOVE_RECURSE
  "libcoconet_bench_megatron_mlp_baseline_partial_18.a"
)
