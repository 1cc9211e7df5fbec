# Empty dependencies file for lesson_01_layouts.
# This may be replaced when dependencies are built.
