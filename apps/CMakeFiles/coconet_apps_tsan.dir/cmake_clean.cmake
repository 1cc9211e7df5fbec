file(REMOVE_RECURSE
  "CMakeFiles/coconet_apps_tsan.dir/adam.cpp.o"
  "CMakeFiles/coconet_apps_tsan.dir/adam.cpp.o.d"
  "CMakeFiles/coconet_apps_tsan.dir/all_apps.cpp.o"
  "CMakeFiles/coconet_apps_tsan.dir/all_apps.cpp.o.d"
  "CMakeFiles/coconet_apps_tsan.dir/aot_runner.cpp.o"
  "CMakeFiles/coconet_apps_tsan.dir/aot_runner.cpp.o.d"
  "CMakeFiles/coconet_apps_tsan.dir/fused_ops.cpp.o"
  "CMakeFiles/coconet_apps_tsan.dir/fused_ops.cpp.o.d"
  "CMakeFiles/coconet_apps_tsan.dir/lamb.cpp.o"
  "CMakeFiles/coconet_apps_tsan.dir/lamb.cpp.o.d"
  "CMakeFiles/coconet_apps_tsan.dir/megatron_mlp.cpp.o"
  "CMakeFiles/coconet_apps_tsan.dir/megatron_mlp.cpp.o.d"
  "CMakeFiles/coconet_apps_tsan.dir/pipeline.cpp.o"
  "CMakeFiles/coconet_apps_tsan.dir/pipeline.cpp.o.d"
  "libcoconet_apps_tsan.a"
  "libcoconet_apps_tsan.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/coconet_apps_tsan.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
