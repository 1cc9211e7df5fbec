file(REMOVE_RECURSE
  "CMakeFiles/coconet_bench_pipeline_stage_coconet_16.generate"
  "coconet_bench_pipeline_stage_coconet_16.coconet/coconet_bench_pipeline_stage_coconet_16.cpp"
  "coconet_bench_pipeline_stage_coconet_16.coconet/coconet_bench_pipeline_stage_coconet_16.h"
  "coconet_bench_pipeline_stage_coconet_16.coconet/coconet_bench_pipeline_stage_coconet_16_halide.a"
)

# Per-language clean rules from dependency scanning.
foreach(lang )
  include(CMakeFiles/coconet_bench_pipeline_stage_coconet_16.generate.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
