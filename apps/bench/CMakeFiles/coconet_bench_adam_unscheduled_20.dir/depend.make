# Empty dependencies file for coconet_bench_adam_unscheduled_20.
# This may be replaced when dependencies are built.
