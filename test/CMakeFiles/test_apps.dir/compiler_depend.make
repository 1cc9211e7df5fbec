# Empty compiler generated dependencies file for test_apps.
# This may be replaced when dependencies are built.
