# Empty dependencies file for test_fused_asan.
# This may be replaced when dependencies are built.
