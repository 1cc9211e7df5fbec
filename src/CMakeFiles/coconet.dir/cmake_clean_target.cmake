file(REMOVE_RECURSE
  "libcoconet.a"
)
