file(REMOVE_RECURSE
  "libaot_lamb_cuda.a"
)
