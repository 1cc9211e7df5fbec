file(REMOVE_RECURSE
  "libaot_megatron_partial_autoscheduled.a"
)
