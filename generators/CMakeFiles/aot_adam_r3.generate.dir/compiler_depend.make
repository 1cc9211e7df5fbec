# Empty custom commands generated dependencies file for aot_adam_r3.generate.
# This may be replaced when dependencies are built.
