file(REMOVE_RECURSE
  "libaot_megatron_mlp_split_opencl.a"
)
