# Empty compiler generated dependencies file for coconet_catch_main.
# This may be replaced when dependencies are built.
