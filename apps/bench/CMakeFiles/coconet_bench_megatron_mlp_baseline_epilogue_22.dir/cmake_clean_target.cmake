file(REMOVE_RECURSE
  "libcoconet_bench_megatron_mlp_baseline_epilogue_22.a"
)
