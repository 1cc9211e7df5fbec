file(REMOVE_RECURSE
  "libaot_adam_r3.a"
)
