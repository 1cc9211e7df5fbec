
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/main/apps/adam.cpp" "apps/CMakeFiles/coconet_apps_tsan.dir/adam.cpp.o" "gcc" "apps/CMakeFiles/coconet_apps_tsan.dir/adam.cpp.o.d"
  "/work/main/apps/all_apps.cpp" "apps/CMakeFiles/coconet_apps_tsan.dir/all_apps.cpp.o" "gcc" "apps/CMakeFiles/coconet_apps_tsan.dir/all_apps.cpp.o.d"
  "/work/main/apps/aot_runner.cpp" "apps/CMakeFiles/coconet_apps_tsan.dir/aot_runner.cpp.o" "gcc" "apps/CMakeFiles/coconet_apps_tsan.dir/aot_runner.cpp.o.d"
  "/work/main/apps/fused_ops.cpp" "apps/CMakeFiles/coconet_apps_tsan.dir/fused_ops.cpp.o" "gcc" "apps/CMakeFiles/coconet_apps_tsan.dir/fused_ops.cpp.o.d"
  "/work/main/apps/lamb.cpp" "apps/CMakeFiles/coconet_apps_tsan.dir/lamb.cpp.o" "gcc" "apps/CMakeFiles/coconet_apps_tsan.dir/lamb.cpp.o.d"
  "/work/main/apps/megatron_mlp.cpp" "apps/CMakeFiles/coconet_apps_tsan.dir/megatron_mlp.cpp.o" "gcc" "apps/CMakeFiles/coconet_apps_tsan.dir/megatron_mlp.cpp.o.d"
  "/work/main/apps/pipeline.cpp" "apps/CMakeFiles/coconet_apps_tsan.dir/pipeline.cpp.o" "gcc" "apps/CMakeFiles/coconet_apps_tsan.dir/pipeline.cpp.o.d"
  )

# Targets to which this target links which contain Fortran sources.
set(CMAKE_Fortran_TARGET_LINKED_INFO_FILES
  )

# Targets to which this target links which contain Fortran sources.
set(CMAKE_Fortran_TARGET_FORWARD_LINKED_INFO_FILES
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
