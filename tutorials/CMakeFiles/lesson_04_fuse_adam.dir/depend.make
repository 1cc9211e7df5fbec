# Empty dependencies file for lesson_04_fuse_adam.
# This may be replaced when dependencies are built.
