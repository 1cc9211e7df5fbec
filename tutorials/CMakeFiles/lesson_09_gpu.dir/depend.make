# Empty dependencies file for lesson_09_gpu.
# This may be replaced when dependencies are built.
