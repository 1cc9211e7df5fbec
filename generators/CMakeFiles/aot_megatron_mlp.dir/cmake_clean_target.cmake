file(REMOVE_RECURSE
  "libaot_megatron_mlp.a"
)
