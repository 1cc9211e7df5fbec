# Empty compiler generated dependencies file for coconet_bench.
# This may be replaced when dependencies are built.
