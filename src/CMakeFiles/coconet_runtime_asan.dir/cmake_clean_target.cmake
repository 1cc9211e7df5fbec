file(REMOVE_RECURSE
  "libcoconet_runtime_asan.a"
)
