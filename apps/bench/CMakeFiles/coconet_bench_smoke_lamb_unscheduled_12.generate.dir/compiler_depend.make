# Empty custom commands generated dependencies file for coconet_bench_smoke_lamb_unscheduled_12.generate.
# This may be replaced when dependencies are built.
