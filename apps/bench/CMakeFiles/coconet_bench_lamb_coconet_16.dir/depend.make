# Empty dependencies file for coconet_bench_lamb_coconet_16.
# This may be replaced when dependencies are built.
