file(REMOVE_RECURSE
  "libaot_lamb_opencl.a"
)
