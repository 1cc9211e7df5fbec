# Empty dependencies file for coconet_bench_smoke_lamb_coconet_12.
# This may be replaced when dependencies are built.
