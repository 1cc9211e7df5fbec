# Empty compiler generated dependencies file for coconet_objects.
# This may be replaced when dependencies are built.
