file(REMOVE_RECURSE
  "libaot_adam_cuda.a"
)
