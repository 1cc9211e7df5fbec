file(REMOVE_RECURSE
  "libcoconet_bench_smoke_gemm_all_to_all_coconet_13.a"
)
