file(REMOVE_RECURSE
  "libaot_adam_opencl.a"
)
