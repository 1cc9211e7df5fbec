# Empty dependencies file for test_bad_input.
# This may be replaced when dependencies are built.
