file(REMOVE_RECURSE
  "libcoconet_runtime.a"
)
