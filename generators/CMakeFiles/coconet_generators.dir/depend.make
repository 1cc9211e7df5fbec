# Empty dependencies file for coconet_generators.
# This may be replaced when dependencies are built.
