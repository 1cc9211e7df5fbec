file(REMOVE_RECURSE
  "libcoconet_bench_smoke_megatron_mlp_coconet_12.a"
)
