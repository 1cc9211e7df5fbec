file(REMOVE_RECURSE
  "CMakeFiles/aot_pipeline_stage.dir/aot_pipeline_stage.coconet/aot_pipeline_stage.cpp.o"
  "CMakeFiles/aot_pipeline_stage.dir/aot_pipeline_stage.coconet/aot_pipeline_stage.cpp.o.d"
  "libaot_pipeline_stage.a"
  "libaot_pipeline_stage.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/aot_pipeline_stage.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
