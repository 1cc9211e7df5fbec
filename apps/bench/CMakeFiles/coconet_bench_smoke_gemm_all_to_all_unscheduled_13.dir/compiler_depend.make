# Empty compiler generated dependencies file for coconet_bench_smoke_gemm_all_to_all_unscheduled_13.
# This may be replaced when dependencies are built.
