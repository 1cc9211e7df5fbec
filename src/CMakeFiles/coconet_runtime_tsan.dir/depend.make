# Empty dependencies file for coconet_runtime_tsan.
# This may be replaced when dependencies are built.
