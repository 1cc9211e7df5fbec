# Empty compiler generated dependencies file for coconet_generator_main.
# This may be replaced when dependencies are built.
