file(REMOVE_RECURSE
  "CMakeFiles/coconet_bench_embedding_all_to_all_unscheduled_22.generate"
  "coconet_bench_embedding_all_to_all_unscheduled_22.coconet/coconet_bench_embedding_all_to_all_unscheduled_22.cpp"
  "coconet_bench_embedding_all_to_all_unscheduled_22.coconet/coconet_bench_embedding_all_to_all_unscheduled_22.h"
  "coconet_bench_embedding_all_to_all_unscheduled_22.coconet/coconet_bench_embedding_all_to_all_unscheduled_22_halide.a"
)

# Per-language clean rules from dependency scanning.
foreach(lang )
  include(CMakeFiles/coconet_bench_embedding_all_to_all_unscheduled_22.generate.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
