file(REMOVE_RECURSE
  "libcoconet_apps_tsan.a"
)
