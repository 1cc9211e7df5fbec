# Empty compiler generated dependencies file for coconet_bench_gemv_all_reduce_coconet_20.
# This may be replaced when dependencies are built.
