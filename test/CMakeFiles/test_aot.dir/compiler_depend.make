# Empty compiler generated dependencies file for test_aot.
# This may be replaced when dependencies are built.
