
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/main/generators/AppParams.cpp" "generators/CMakeFiles/coconet_app_generators.dir/AppParams.cpp.o" "gcc" "generators/CMakeFiles/coconet_app_generators.dir/AppParams.cpp.o.d"
  "/work/main/generators/adam.cpp" "generators/CMakeFiles/coconet_app_generators.dir/adam.cpp.o" "gcc" "generators/CMakeFiles/coconet_app_generators.dir/adam.cpp.o.d"
  "/work/main/generators/fused_ops.cpp" "generators/CMakeFiles/coconet_app_generators.dir/fused_ops.cpp.o" "gcc" "generators/CMakeFiles/coconet_app_generators.dir/fused_ops.cpp.o.d"
  "/work/main/generators/lamb.cpp" "generators/CMakeFiles/coconet_app_generators.dir/lamb.cpp.o" "gcc" "generators/CMakeFiles/coconet_app_generators.dir/lamb.cpp.o.d"
  "/work/main/generators/megatron_mlp.cpp" "generators/CMakeFiles/coconet_app_generators.dir/megatron_mlp.cpp.o" "gcc" "generators/CMakeFiles/coconet_app_generators.dir/megatron_mlp.cpp.o.d"
  "/work/main/generators/pipeline_stage.cpp" "generators/CMakeFiles/coconet_app_generators.dir/pipeline_stage.cpp.o" "gcc" "generators/CMakeFiles/coconet_app_generators.dir/pipeline_stage.cpp.o.d"
  )

# Targets to which this target links which contain Fortran sources.
set(CMAKE_Fortran_TARGET_LINKED_INFO_FILES
  )

# Targets to which this target links which contain Fortran sources.
set(CMAKE_Fortran_TARGET_FORWARD_LINKED_INFO_FILES
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
