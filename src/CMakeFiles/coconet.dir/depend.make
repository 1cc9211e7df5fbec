# Empty dependencies file for coconet.
# This may be replaced when dependencies are built.
