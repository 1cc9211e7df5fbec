# Empty dependencies file for test_fused_ops.
# This may be replaced when dependencies are built.
