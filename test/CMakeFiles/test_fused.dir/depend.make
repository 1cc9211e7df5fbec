# Empty dependencies file for test_fused.
# This may be replaced when dependencies are built.
