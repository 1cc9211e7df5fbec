# Empty dependencies file for lesson_07_generator.
# This may be replaced when dependencies are built.
