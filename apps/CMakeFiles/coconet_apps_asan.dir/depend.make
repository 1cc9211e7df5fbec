# Empty dependencies file for coconet_apps_asan.
# This may be replaced when dependencies are built.
