file(REMOVE_RECURSE
  "CMakeFiles/aot_pipeline_stage_cuda.generate"
  "aot_pipeline_stage_cuda.coconet/aot_pipeline_stage_cuda.cpp"
  "aot_pipeline_stage_cuda.coconet/aot_pipeline_stage_cuda.h"
  "aot_pipeline_stage_cuda.coconet/aot_pipeline_stage_cuda_halide.a"
)

# Per-language clean rules from dependency scanning.
foreach(lang )
  include(CMakeFiles/aot_pipeline_stage_cuda.generate.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
