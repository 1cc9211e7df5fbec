file(REMOVE_RECURSE
  "CMakeFiles/aot_pipeline_stage_cuda.dir/aot_pipeline_stage_cuda.coconet/aot_pipeline_stage_cuda.cpp.o"
  "CMakeFiles/aot_pipeline_stage_cuda.dir/aot_pipeline_stage_cuda.coconet/aot_pipeline_stage_cuda.cpp.o.d"
  "libaot_pipeline_stage_cuda.a"
  "libaot_pipeline_stage_cuda.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/aot_pipeline_stage_cuda.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
