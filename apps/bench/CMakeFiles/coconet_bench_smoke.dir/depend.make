# Empty dependencies file for coconet_bench_smoke.
# This may be replaced when dependencies are built.
