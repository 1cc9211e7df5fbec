file(REMOVE_RECURSE
  "CMakeFiles/aot_pipeline_stage_opencl.dir/aot_pipeline_stage_opencl.coconet/aot_pipeline_stage_opencl.cpp.o"
  "CMakeFiles/aot_pipeline_stage_opencl.dir/aot_pipeline_stage_opencl.coconet/aot_pipeline_stage_opencl.cpp.o.d"
  "libaot_pipeline_stage_opencl.a"
  "libaot_pipeline_stage_opencl.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/aot_pipeline_stage_opencl.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
