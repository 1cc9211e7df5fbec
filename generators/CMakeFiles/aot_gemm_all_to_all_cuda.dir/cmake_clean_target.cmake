file(REMOVE_RECURSE
  "libaot_gemm_all_to_all_cuda.a"
)
