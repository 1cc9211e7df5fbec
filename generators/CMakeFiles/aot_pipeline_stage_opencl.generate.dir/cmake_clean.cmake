file(REMOVE_RECURSE
  "CMakeFiles/aot_pipeline_stage_opencl.generate"
  "aot_pipeline_stage_opencl.coconet/aot_pipeline_stage_opencl.cpp"
  "aot_pipeline_stage_opencl.coconet/aot_pipeline_stage_opencl.h"
  "aot_pipeline_stage_opencl.coconet/aot_pipeline_stage_opencl_halide.a"
)

# Per-language clean rules from dependency scanning.
foreach(lang )
  include(CMakeFiles/aot_pipeline_stage_opencl.generate.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
