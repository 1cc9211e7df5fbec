
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/main/src/Analysis.cpp" "src/CMakeFiles/coconet_tsan.dir/Analysis.cpp.o" "gcc" "src/CMakeFiles/coconet_tsan.dir/Analysis.cpp.o.d"
  "/work/main/src/AotCompile.cpp" "src/CMakeFiles/coconet_tsan.dir/AotCompile.cpp.o" "gcc" "src/CMakeFiles/coconet_tsan.dir/AotCompile.cpp.o.d"
  "/work/main/src/AotSource.cpp" "src/CMakeFiles/coconet_tsan.dir/AotSource.cpp.o" "gcc" "src/CMakeFiles/coconet_tsan.dir/AotSource.cpp.o.d"
  "/work/main/src/AutoSchedule.cpp" "src/CMakeFiles/coconet_tsan.dir/AutoSchedule.cpp.o" "gcc" "src/CMakeFiles/coconet_tsan.dir/AutoSchedule.cpp.o.d"
  "/work/main/src/CollectFuncs.cpp" "src/CMakeFiles/coconet_tsan.dir/CollectFuncs.cpp.o" "gcc" "src/CMakeFiles/coconet_tsan.dir/CollectFuncs.cpp.o.d"
  "/work/main/src/CollectiveStage.cpp" "src/CMakeFiles/coconet_tsan.dir/CollectiveStage.cpp.o" "gcc" "src/CMakeFiles/coconet_tsan.dir/CollectiveStage.cpp.o.d"
  "/work/main/src/Collectives.cpp" "src/CMakeFiles/coconet_tsan.dir/Collectives.cpp.o" "gcc" "src/CMakeFiles/coconet_tsan.dir/Collectives.cpp.o.d"
  "/work/main/src/DFunc.cpp" "src/CMakeFiles/coconet_tsan.dir/DFunc.cpp.o" "gcc" "src/CMakeFiles/coconet_tsan.dir/DFunc.cpp.o.d"
  "/work/main/src/Error.cpp" "src/CMakeFiles/coconet_tsan.dir/Error.cpp.o" "gcc" "src/CMakeFiles/coconet_tsan.dir/Error.cpp.o.d"
  "/work/main/src/FusedKernel.cpp" "src/CMakeFiles/coconet_tsan.dir/FusedKernel.cpp.o" "gcc" "src/CMakeFiles/coconet_tsan.dir/FusedKernel.cpp.o.d"
  "/work/main/src/Fusion.cpp" "src/CMakeFiles/coconet_tsan.dir/Fusion.cpp.o" "gcc" "src/CMakeFiles/coconet_tsan.dir/Fusion.cpp.o.d"
  "/work/main/src/Generator.cpp" "src/CMakeFiles/coconet_tsan.dir/Generator.cpp.o" "gcc" "src/CMakeFiles/coconet_tsan.dir/Generator.cpp.o.d"
  "/work/main/src/GpuSchedule.cpp" "src/CMakeFiles/coconet_tsan.dir/GpuSchedule.cpp.o" "gcc" "src/CMakeFiles/coconet_tsan.dir/GpuSchedule.cpp.o.d"
  "/work/main/src/InferLayouts.cpp" "src/CMakeFiles/coconet_tsan.dir/InferLayouts.cpp.o" "gcc" "src/CMakeFiles/coconet_tsan.dir/InferLayouts.cpp.o.d"
  "/work/main/src/JitProgram.cpp" "src/CMakeFiles/coconet_tsan.dir/JitProgram.cpp.o" "gcc" "src/CMakeFiles/coconet_tsan.dir/JitProgram.cpp.o.d"
  "/work/main/src/Layout.cpp" "src/CMakeFiles/coconet_tsan.dir/Layout.cpp.o" "gcc" "src/CMakeFiles/coconet_tsan.dir/Layout.cpp.o.d"
  "/work/main/src/Liveness.cpp" "src/CMakeFiles/coconet_tsan.dir/Liveness.cpp.o" "gcc" "src/CMakeFiles/coconet_tsan.dir/Liveness.cpp.o.d"
  "/work/main/src/Lower.cpp" "src/CMakeFiles/coconet_tsan.dir/Lower.cpp.o" "gcc" "src/CMakeFiles/coconet_tsan.dir/Lower.cpp.o.d"
  "/work/main/src/LowerSpmd.cpp" "src/CMakeFiles/coconet_tsan.dir/LowerSpmd.cpp.o" "gcc" "src/CMakeFiles/coconet_tsan.dir/LowerSpmd.cpp.o.d"
  "/work/main/src/Partition.cpp" "src/CMakeFiles/coconet_tsan.dir/Partition.cpp.o" "gcc" "src/CMakeFiles/coconet_tsan.dir/Partition.cpp.o.d"
  "/work/main/src/Placement.cpp" "src/CMakeFiles/coconet_tsan.dir/Placement.cpp.o" "gcc" "src/CMakeFiles/coconet_tsan.dir/Placement.cpp.o.d"
  "/work/main/src/PrintPlan.cpp" "src/CMakeFiles/coconet_tsan.dir/PrintPlan.cpp.o" "gcc" "src/CMakeFiles/coconet_tsan.dir/PrintPlan.cpp.o.d"
  "/work/main/src/Program.cpp" "src/CMakeFiles/coconet_tsan.dir/Program.cpp.o" "gcc" "src/CMakeFiles/coconet_tsan.dir/Program.cpp.o.d"
  "/work/main/src/ProgramPlan.cpp" "src/CMakeFiles/coconet_tsan.dir/ProgramPlan.cpp.o" "gcc" "src/CMakeFiles/coconet_tsan.dir/ProgramPlan.cpp.o.d"
  "/work/main/src/Random.cpp" "src/CMakeFiles/coconet_tsan.dir/Random.cpp.o" "gcc" "src/CMakeFiles/coconet_tsan.dir/Random.cpp.o.d"
  "/work/main/src/RankData.cpp" "src/CMakeFiles/coconet_tsan.dir/RankData.cpp.o" "gcc" "src/CMakeFiles/coconet_tsan.dir/RankData.cpp.o.d"
  "/work/main/src/Rebuild.cpp" "src/CMakeFiles/coconet_tsan.dir/Rebuild.cpp.o" "gcc" "src/CMakeFiles/coconet_tsan.dir/Rebuild.cpp.o.d"
  "/work/main/src/Reference.cpp" "src/CMakeFiles/coconet_tsan.dir/Reference.cpp.o" "gcc" "src/CMakeFiles/coconet_tsan.dir/Reference.cpp.o.d"
  "/work/main/src/Schedule.cpp" "src/CMakeFiles/coconet_tsan.dir/Schedule.cpp.o" "gcc" "src/CMakeFiles/coconet_tsan.dir/Schedule.cpp.o.d"
  "/work/main/src/ScheduledReads.cpp" "src/CMakeFiles/coconet_tsan.dir/ScheduledReads.cpp.o" "gcc" "src/CMakeFiles/coconet_tsan.dir/ScheduledReads.cpp.o.d"
  )

# Targets to which this target links which contain Fortran sources.
set(CMAKE_Fortran_TARGET_LINKED_INFO_FILES
  )

# Targets to which this target links which contain Fortran sources.
set(CMAKE_Fortran_TARGET_FORWARD_LINKED_INFO_FILES
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
