file(REMOVE_RECURSE
  "CMakeFiles/coconet_bench_smoke_adam_unscheduled_12.generate"
  "coconet_bench_smoke_adam_unscheduled_12.coconet/coconet_bench_smoke_adam_unscheduled_12.cpp"
  "coconet_bench_smoke_adam_unscheduled_12.coconet/coconet_bench_smoke_adam_unscheduled_12.h"
  "coconet_bench_smoke_adam_unscheduled_12.coconet/coconet_bench_smoke_adam_unscheduled_12_halide.a"
)

# Per-language clean rules from dependency scanning.
foreach(lang )
  include(CMakeFiles/coconet_bench_smoke_adam_unscheduled_12.generate.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
