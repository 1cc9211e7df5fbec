# Empty compiler generated dependencies file for test_pass_placement.
# This may be replaced when dependencies are built.
