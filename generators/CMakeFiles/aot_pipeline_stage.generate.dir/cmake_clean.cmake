file(REMOVE_RECURSE
  "CMakeFiles/aot_pipeline_stage.generate"
  "aot_pipeline_stage.coconet/aot_pipeline_stage.cpp"
  "aot_pipeline_stage.coconet/aot_pipeline_stage.h"
  "aot_pipeline_stage.coconet/aot_pipeline_stage_halide.a"
)

# Per-language clean rules from dependency scanning.
foreach(lang )
  include(CMakeFiles/aot_pipeline_stage.generate.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
