# Empty compiler generated dependencies file for aot_adam_r3.
# This may be replaced when dependencies are built.
