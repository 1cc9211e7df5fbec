# Empty compiler generated dependencies file for test_leak_asan.
# This may be replaced when dependencies are built.
