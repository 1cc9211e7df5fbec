# Empty compiler generated dependencies file for coconet_bench_lamb_coconet_24.
# This may be replaced when dependencies are built.
