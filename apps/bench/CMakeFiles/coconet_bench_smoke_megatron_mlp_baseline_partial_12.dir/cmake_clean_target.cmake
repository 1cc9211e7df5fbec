file(REMOVE_RECURSE
  "libcoconet_bench_smoke_megatron_mlp_baseline_partial_12.a"
)
