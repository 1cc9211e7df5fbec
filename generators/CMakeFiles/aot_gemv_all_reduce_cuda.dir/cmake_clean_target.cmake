file(REMOVE_RECURSE
  "libaot_gemv_all_reduce_cuda.a"
)
