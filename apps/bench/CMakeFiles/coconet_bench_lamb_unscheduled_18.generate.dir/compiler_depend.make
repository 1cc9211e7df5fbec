# Empty custom commands generated dependencies file for coconet_bench_lamb_unscheduled_18.generate.
# This may be replaced when dependencies are built.
