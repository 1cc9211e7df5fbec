file(REMOVE_RECURSE
  "CMakeFiles/coconet_apps_objects.dir/adam.cpp.o"
  "CMakeFiles/coconet_apps_objects.dir/adam.cpp.o.d"
  "CMakeFiles/coconet_apps_objects.dir/all_apps.cpp.o"
  "CMakeFiles/coconet_apps_objects.dir/all_apps.cpp.o.d"
  "CMakeFiles/coconet_apps_objects.dir/aot_runner.cpp.o"
  "CMakeFiles/coconet_apps_objects.dir/aot_runner.cpp.o.d"
  "CMakeFiles/coconet_apps_objects.dir/fused_ops.cpp.o"
  "CMakeFiles/coconet_apps_objects.dir/fused_ops.cpp.o.d"
  "CMakeFiles/coconet_apps_objects.dir/lamb.cpp.o"
  "CMakeFiles/coconet_apps_objects.dir/lamb.cpp.o.d"
  "CMakeFiles/coconet_apps_objects.dir/megatron_mlp.cpp.o"
  "CMakeFiles/coconet_apps_objects.dir/megatron_mlp.cpp.o.d"
  "CMakeFiles/coconet_apps_objects.dir/pipeline.cpp.o"
  "CMakeFiles/coconet_apps_objects.dir/pipeline.cpp.o.d"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/coconet_apps_objects.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
