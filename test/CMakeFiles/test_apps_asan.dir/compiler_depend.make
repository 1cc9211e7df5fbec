# Empty compiler generated dependencies file for test_apps_asan.
# This may be replaced when dependencies are built.
