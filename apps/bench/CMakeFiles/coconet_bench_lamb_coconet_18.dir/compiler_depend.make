# Empty compiler generated dependencies file for coconet_bench_lamb_coconet_18.
# This may be replaced when dependencies are built.
