file(REMOVE_RECURSE
  "libaot_adam.a"
)
