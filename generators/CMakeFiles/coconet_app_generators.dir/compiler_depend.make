# Empty compiler generated dependencies file for coconet_app_generators.
# This may be replaced when dependencies are built.
