# Empty compiler generated dependencies file for test_apps_tsan.
# This may be replaced when dependencies are built.
