# Empty dependencies file for coconet_demo.
# This may be replaced when dependencies are built.
