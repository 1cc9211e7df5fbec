# Empty dependencies file for coconet_tsan.
# This may be replaced when dependencies are built.
