file(REMOVE_RECURSE
  "libcoconet_runtime_tsan.a"
)
