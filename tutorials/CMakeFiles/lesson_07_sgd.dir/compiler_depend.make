# Empty compiler generated dependencies file for lesson_07_sgd.
# This may be replaced when dependencies are built.
