# Empty dependencies file for lesson_06_pipeline.
# This may be replaced when dependencies are built.
