# Empty dependencies file for coconet_bench_smoke_adam_unscheduled_12.
# This may be replaced when dependencies are built.
