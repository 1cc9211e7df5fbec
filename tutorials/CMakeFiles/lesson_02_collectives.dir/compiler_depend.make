# Empty compiler generated dependencies file for lesson_02_collectives.
# This may be replaced when dependencies are built.
