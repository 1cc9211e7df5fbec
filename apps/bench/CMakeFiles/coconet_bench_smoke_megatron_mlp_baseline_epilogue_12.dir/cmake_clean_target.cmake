file(REMOVE_RECURSE
  "libcoconet_bench_smoke_megatron_mlp_baseline_epilogue_12.a"
)
