# Empty compiler generated dependencies file for coconet_runtime.
# This may be replaced when dependencies are built.
