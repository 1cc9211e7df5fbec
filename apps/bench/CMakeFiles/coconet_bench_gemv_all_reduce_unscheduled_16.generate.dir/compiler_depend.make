# Empty custom commands generated dependencies file for coconet_bench_gemv_all_reduce_unscheduled_16.generate.
# This may be replaced when dependencies are built.
