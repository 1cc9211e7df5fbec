# Empty compiler generated dependencies file for coconet_bench_adam_unscheduled_24.
# This may be replaced when dependencies are built.
