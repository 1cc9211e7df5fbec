# Empty dependencies file for coconet_bench_gemv_all_reduce_coconet_22.
# This may be replaced when dependencies are built.
