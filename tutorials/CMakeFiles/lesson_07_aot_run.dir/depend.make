# Empty dependencies file for lesson_07_aot_run.
# This may be replaced when dependencies are built.
