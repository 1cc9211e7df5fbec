file(REMOVE_RECURSE
  "libcoconet_asan.a"
)
