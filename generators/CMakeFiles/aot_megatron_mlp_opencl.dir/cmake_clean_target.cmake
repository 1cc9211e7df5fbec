file(REMOVE_RECURSE
  "libaot_megatron_mlp_opencl.a"
)
