# Empty compiler generated dependencies file for coconet_bench_smoke_gemv_all_reduce_coconet_13.
# This may be replaced when dependencies are built.
