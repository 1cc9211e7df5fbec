# Empty custom commands generated dependencies file for lesson_07_sgd.generate.
# This may be replaced when dependencies are built.
