file(REMOVE_RECURSE
  "CMakeFiles/coconet_bench_adam_unscheduled_26.generate"
  "coconet_bench_adam_unscheduled_26.coconet/coconet_bench_adam_unscheduled_26.cpp"
  "coconet_bench_adam_unscheduled_26.coconet/coconet_bench_adam_unscheduled_26.h"
  "coconet_bench_adam_unscheduled_26.coconet/coconet_bench_adam_unscheduled_26_halide.a"
)

# Per-language clean rules from dependency scanning.
foreach(lang )
  include(CMakeFiles/coconet_bench_adam_unscheduled_26.generate.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
