# Empty custom commands generated dependencies file for lesson_07_sgd_cuda.generate.
# This may be replaced when dependencies are built.
