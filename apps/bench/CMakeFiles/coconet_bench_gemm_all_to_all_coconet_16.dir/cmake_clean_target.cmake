file(REMOVE_RECURSE
  "libcoconet_bench_gemm_all_to_all_coconet_16.a"
)
