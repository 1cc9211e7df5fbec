file(REMOVE_RECURSE
  "libcoconet_generator_main.a"
)
