file(REMOVE_RECURSE
  "libaot_megatron_mlp_none_opencl.a"
)
