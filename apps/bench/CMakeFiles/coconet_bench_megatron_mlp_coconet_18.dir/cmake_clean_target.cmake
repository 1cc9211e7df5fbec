file(REMOVE_RECURSE
  "libcoconet_bench_megatron_mlp_coconet_18.a"
)
