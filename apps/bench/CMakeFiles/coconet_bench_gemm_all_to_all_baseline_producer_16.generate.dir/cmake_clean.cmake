file(REMOVE_RECURSE
  "CMakeFiles/coconet_bench_gemm_all_to_all_baseline_producer_16.generate"
  "coconet_bench_gemm_all_to_all_baseline_producer_16.coconet/coconet_bench_gemm_all_to_all_baseline_producer_16.cpp"
  "coconet_bench_gemm_all_to_all_baseline_producer_16.coconet/coconet_bench_gemm_all_to_all_baseline_producer_16.h"
  "coconet_bench_gemm_all_to_all_baseline_producer_16.coconet/coconet_bench_gemm_all_to_all_baseline_producer_16_halide.a"
)

# Per-language clean rules from dependency scanning.
foreach(lang )
  include(CMakeFiles/coconet_bench_gemm_all_to_all_baseline_producer_16.generate.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
