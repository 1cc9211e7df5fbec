# Empty compiler generated dependencies file for coconet_apps_objects.
# This may be replaced when dependencies are built.
