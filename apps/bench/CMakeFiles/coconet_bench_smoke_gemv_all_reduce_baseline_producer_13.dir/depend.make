# Empty dependencies file for coconet_bench_smoke_gemv_all_reduce_baseline_producer_13.
# This may be replaced when dependencies are built.
