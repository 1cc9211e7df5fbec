# Empty dependencies file for coconet_bench_gemm_all_to_all_baseline_producer_22.
# This may be replaced when dependencies are built.
