file(REMOVE_RECURSE
  "libcoconet_tsan.a"
)
