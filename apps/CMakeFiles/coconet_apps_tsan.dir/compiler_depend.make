# Empty compiler generated dependencies file for coconet_apps_tsan.
# This may be replaced when dependencies are built.
