# Empty custom commands generated dependencies file for coconet_bench_gemv_all_reduce_coconet_22.generate.
# This may be replaced when dependencies are built.
