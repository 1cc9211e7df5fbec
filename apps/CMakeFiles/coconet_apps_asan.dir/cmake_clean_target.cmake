file(REMOVE_RECURSE
  "libcoconet_apps_asan.a"
)
