# Empty custom commands generated dependencies file for aot_adam.generate.
# This may be replaced when dependencies are built.
