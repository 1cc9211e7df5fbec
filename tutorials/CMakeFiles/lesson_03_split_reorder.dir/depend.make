# Empty dependencies file for lesson_03_split_reorder.
# This may be replaced when dependencies are built.
