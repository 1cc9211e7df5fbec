# Empty custom commands generated dependencies file for coconet_bench_lamb_unscheduled_24.generate.
# This may be replaced when dependencies are built.
