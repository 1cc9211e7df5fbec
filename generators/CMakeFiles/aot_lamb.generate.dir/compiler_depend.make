# Empty custom commands generated dependencies file for aot_lamb.generate.
# This may be replaced when dependencies are built.
