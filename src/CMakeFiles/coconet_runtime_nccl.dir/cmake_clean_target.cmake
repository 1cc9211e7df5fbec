file(REMOVE_RECURSE
  "libcoconet_runtime_nccl.a"
)
