# Empty dependencies file for aot_lamb.
# This may be replaced when dependencies are built.
