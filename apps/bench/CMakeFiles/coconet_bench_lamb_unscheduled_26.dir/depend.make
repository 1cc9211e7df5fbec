# Empty dependencies file for coconet_bench_lamb_unscheduled_26.
# This may be replaced when dependencies are built.
