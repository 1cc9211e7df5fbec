file(REMOVE_RECURSE
  "libcoconet_bench_gemm_all_to_all_baseline_producer_22.a"
)
