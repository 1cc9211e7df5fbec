file(REMOVE_RECURSE
  "CMakeFiles/coconet_bench_smoke_gemv_all_reduce_unscheduled_13.generate"
  "coconet_bench_smoke_gemv_all_reduce_unscheduled_13.coconet/coconet_bench_smoke_gemv_all_reduce_unscheduled_13.cpp"
  "coconet_bench_smoke_gemv_all_reduce_unscheduled_13.coconet/coconet_bench_smoke_gemv_all_reduce_unscheduled_13.h"
  "coconet_bench_smoke_gemv_all_reduce_unscheduled_13.coconet/coconet_bench_smoke_gemv_all_reduce_unscheduled_13_halide.a"
)

# Per-language clean rules from dependency scanning.
foreach(lang )
  include(CMakeFiles/coconet_bench_smoke_gemv_all_reduce_unscheduled_13.generate.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
