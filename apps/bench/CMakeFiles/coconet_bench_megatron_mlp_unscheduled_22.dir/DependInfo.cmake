
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/main/apps/bench/coconet_bench_megatron_mlp_unscheduled_22.coconet/coconet_bench_megatron_mlp_unscheduled_22.cpp" "apps/bench/CMakeFiles/coconet_bench_megatron_mlp_unscheduled_22.dir/coconet_bench_megatron_mlp_unscheduled_22.coconet/coconet_bench_megatron_mlp_unscheduled_22.cpp.o" "gcc" "apps/bench/CMakeFiles/coconet_bench_megatron_mlp_unscheduled_22.dir/coconet_bench_megatron_mlp_unscheduled_22.coconet/coconet_bench_megatron_mlp_unscheduled_22.cpp.o.d"
  )

# Targets to which this target links which contain Fortran sources.
set(CMAKE_Fortran_TARGET_LINKED_INFO_FILES
  )

# Targets to which this target links which contain Fortran sources.
set(CMAKE_Fortran_TARGET_FORWARD_LINKED_INFO_FILES
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
