file(REMOVE_RECURSE
  "libcoconet_apps.a"
)
