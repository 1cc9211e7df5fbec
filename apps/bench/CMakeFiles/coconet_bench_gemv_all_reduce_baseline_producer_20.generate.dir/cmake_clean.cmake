file(REMOVE_RECURSE
  "CMakeFiles/coconet_bench_gemv_all_reduce_baseline_producer_20.generate"
  "coconet_bench_gemv_all_reduce_baseline_producer_20.coconet/coconet_bench_gemv_all_reduce_baseline_producer_20.cpp"
  "coconet_bench_gemv_all_reduce_baseline_producer_20.coconet/coconet_bench_gemv_all_reduce_baseline_producer_20.h"
  "coconet_bench_gemv_all_reduce_baseline_producer_20.coconet/coconet_bench_gemv_all_reduce_baseline_producer_20_halide.a"
)

# Per-language clean rules from dependency scanning.
foreach(lang )
  include(CMakeFiles/coconet_bench_gemv_all_reduce_baseline_producer_20.generate.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
