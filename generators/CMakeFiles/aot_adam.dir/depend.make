# Empty dependencies file for aot_adam.
# This may be replaced when dependencies are built.
