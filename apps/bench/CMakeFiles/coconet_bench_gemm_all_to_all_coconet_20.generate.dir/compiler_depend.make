# Empty custom commands generated dependencies file for coconet_bench_gemm_all_to_all_coconet_20.generate.
# This may be replaced when dependencies are built.
