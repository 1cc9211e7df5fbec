file(REMOVE_RECURSE
  "CMakeFiles/coconet_app_generators.dir/AppParams.cpp.o"
  "CMakeFiles/coconet_app_generators.dir/AppParams.cpp.o.d"
  "CMakeFiles/coconet_app_generators.dir/adam.cpp.o"
  "CMakeFiles/coconet_app_generators.dir/adam.cpp.o.d"
  "CMakeFiles/coconet_app_generators.dir/fused_ops.cpp.o"
  "CMakeFiles/coconet_app_generators.dir/fused_ops.cpp.o.d"
  "CMakeFiles/coconet_app_generators.dir/lamb.cpp.o"
  "CMakeFiles/coconet_app_generators.dir/lamb.cpp.o.d"
  "CMakeFiles/coconet_app_generators.dir/megatron_mlp.cpp.o"
  "CMakeFiles/coconet_app_generators.dir/megatron_mlp.cpp.o.d"
  "CMakeFiles/coconet_app_generators.dir/pipeline_stage.cpp.o"
  "CMakeFiles/coconet_app_generators.dir/pipeline_stage.cpp.o.d"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/coconet_app_generators.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
