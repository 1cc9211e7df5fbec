# Empty dependencies file for coconet_bench_gemv_all_reduce_coconet_16.
# This may be replaced when dependencies are built.
