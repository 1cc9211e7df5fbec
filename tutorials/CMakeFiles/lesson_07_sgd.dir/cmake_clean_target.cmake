file(REMOVE_RECURSE
  "liblesson_07_sgd.a"
)
