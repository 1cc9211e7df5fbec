# Empty dependencies file for test_fuzz.
# This may be replaced when dependencies are built.
