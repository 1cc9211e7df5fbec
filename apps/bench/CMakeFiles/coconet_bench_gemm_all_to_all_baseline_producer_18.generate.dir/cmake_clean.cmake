file(REMOVE_RECURSE
  "CMakeFiles/coconet_bench_gemm_all_to_all_baseline_producer_18.generate"
  "coconet_bench_gemm_all_to_all_baseline_producer_18.coconet/coconet_bench_gemm_all_to_all_baseline_producer_18.cpp"
  "coconet_bench_gemm_all_to_all_baseline_producer_18.coconet/coconet_bench_gemm_all_to_all_baseline_producer_18.h"
  "coconet_bench_gemm_all_to_all_baseline_producer_18.coconet/coconet_bench_gemm_all_to_all_baseline_producer_18_halide.a"
)

# Per-language clean rules from dependency scanning.
foreach(lang )
  include(CMakeFiles/coconet_bench_gemm_all_to_all_baseline_producer_18.generate.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
