file(REMOVE_RECURSE
  "libaot_lamb.a"
)
