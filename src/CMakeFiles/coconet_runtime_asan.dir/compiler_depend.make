# Empty compiler generated dependencies file for coconet_runtime_asan.
# This may be replaced when dependencies are built.
