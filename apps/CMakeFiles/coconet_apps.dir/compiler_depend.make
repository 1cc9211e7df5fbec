# Empty compiler generated dependencies file for coconet_apps.
# This may be replaced when dependencies are built.
