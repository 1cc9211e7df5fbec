# Empty dependencies file for test_pass_lower_spmd.
# This may be replaced when dependencies are built.
