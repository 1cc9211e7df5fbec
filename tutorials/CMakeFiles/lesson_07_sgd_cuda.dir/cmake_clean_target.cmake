file(REMOVE_RECURSE
  "liblesson_07_sgd_cuda.a"
)
