# Empty dependencies file for coconet_asan.
# This may be replaced when dependencies are built.
