
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/main/src/Analysis.cpp" "src/CMakeFiles/coconet_objects.dir/Analysis.cpp.o" "gcc" "src/CMakeFiles/coconet_objects.dir/Analysis.cpp.o.d"
  "/work/main/src/AotCompile.cpp" "src/CMakeFiles/coconet_objects.dir/AotCompile.cpp.o" "gcc" "src/CMakeFiles/coconet_objects.dir/AotCompile.cpp.o.d"
  "/work/main/src/AotSource.cpp" "src/CMakeFiles/coconet_objects.dir/AotSource.cpp.o" "gcc" "src/CMakeFiles/coconet_objects.dir/AotSource.cpp.o.d"
  "/work/main/src/AutoSchedule.cpp" "src/CMakeFiles/coconet_objects.dir/AutoSchedule.cpp.o" "gcc" "src/CMakeFiles/coconet_objects.dir/AutoSchedule.cpp.o.d"
  "/work/main/src/CollectFuncs.cpp" "src/CMakeFiles/coconet_objects.dir/CollectFuncs.cpp.o" "gcc" "src/CMakeFiles/coconet_objects.dir/CollectFuncs.cpp.o.d"
  "/work/main/src/CollectiveStage.cpp" "src/CMakeFiles/coconet_objects.dir/CollectiveStage.cpp.o" "gcc" "src/CMakeFiles/coconet_objects.dir/CollectiveStage.cpp.o.d"
  "/work/main/src/Collectives.cpp" "src/CMakeFiles/coconet_objects.dir/Collectives.cpp.o" "gcc" "src/CMakeFiles/coconet_objects.dir/Collectives.cpp.o.d"
  "/work/main/src/DFunc.cpp" "src/CMakeFiles/coconet_objects.dir/DFunc.cpp.o" "gcc" "src/CMakeFiles/coconet_objects.dir/DFunc.cpp.o.d"
  "/work/main/src/Error.cpp" "src/CMakeFiles/coconet_objects.dir/Error.cpp.o" "gcc" "src/CMakeFiles/coconet_objects.dir/Error.cpp.o.d"
  "/work/main/src/FusedKernel.cpp" "src/CMakeFiles/coconet_objects.dir/FusedKernel.cpp.o" "gcc" "src/CMakeFiles/coconet_objects.dir/FusedKernel.cpp.o.d"
  "/work/main/src/Fusion.cpp" "src/CMakeFiles/coconet_objects.dir/Fusion.cpp.o" "gcc" "src/CMakeFiles/coconet_objects.dir/Fusion.cpp.o.d"
  "/work/main/src/Generator.cpp" "src/CMakeFiles/coconet_objects.dir/Generator.cpp.o" "gcc" "src/CMakeFiles/coconet_objects.dir/Generator.cpp.o.d"
  "/work/main/src/GpuSchedule.cpp" "src/CMakeFiles/coconet_objects.dir/GpuSchedule.cpp.o" "gcc" "src/CMakeFiles/coconet_objects.dir/GpuSchedule.cpp.o.d"
  "/work/main/src/InferLayouts.cpp" "src/CMakeFiles/coconet_objects.dir/InferLayouts.cpp.o" "gcc" "src/CMakeFiles/coconet_objects.dir/InferLayouts.cpp.o.d"
  "/work/main/src/JitProgram.cpp" "src/CMakeFiles/coconet_objects.dir/JitProgram.cpp.o" "gcc" "src/CMakeFiles/coconet_objects.dir/JitProgram.cpp.o.d"
  "/work/main/src/Layout.cpp" "src/CMakeFiles/coconet_objects.dir/Layout.cpp.o" "gcc" "src/CMakeFiles/coconet_objects.dir/Layout.cpp.o.d"
  "/work/main/src/Liveness.cpp" "src/CMakeFiles/coconet_objects.dir/Liveness.cpp.o" "gcc" "src/CMakeFiles/coconet_objects.dir/Liveness.cpp.o.d"
  "/work/main/src/Lower.cpp" "src/CMakeFiles/coconet_objects.dir/Lower.cpp.o" "gcc" "src/CMakeFiles/coconet_objects.dir/Lower.cpp.o.d"
  "/work/main/src/LowerSpmd.cpp" "src/CMakeFiles/coconet_objects.dir/LowerSpmd.cpp.o" "gcc" "src/CMakeFiles/coconet_objects.dir/LowerSpmd.cpp.o.d"
  "/work/main/src/Partition.cpp" "src/CMakeFiles/coconet_objects.dir/Partition.cpp.o" "gcc" "src/CMakeFiles/coconet_objects.dir/Partition.cpp.o.d"
  "/work/main/src/Placement.cpp" "src/CMakeFiles/coconet_objects.dir/Placement.cpp.o" "gcc" "src/CMakeFiles/coconet_objects.dir/Placement.cpp.o.d"
  "/work/main/src/PrintPlan.cpp" "src/CMakeFiles/coconet_objects.dir/PrintPlan.cpp.o" "gcc" "src/CMakeFiles/coconet_objects.dir/PrintPlan.cpp.o.d"
  "/work/main/src/Program.cpp" "src/CMakeFiles/coconet_objects.dir/Program.cpp.o" "gcc" "src/CMakeFiles/coconet_objects.dir/Program.cpp.o.d"
  "/work/main/src/ProgramPlan.cpp" "src/CMakeFiles/coconet_objects.dir/ProgramPlan.cpp.o" "gcc" "src/CMakeFiles/coconet_objects.dir/ProgramPlan.cpp.o.d"
  "/work/main/src/Random.cpp" "src/CMakeFiles/coconet_objects.dir/Random.cpp.o" "gcc" "src/CMakeFiles/coconet_objects.dir/Random.cpp.o.d"
  "/work/main/src/RankData.cpp" "src/CMakeFiles/coconet_objects.dir/RankData.cpp.o" "gcc" "src/CMakeFiles/coconet_objects.dir/RankData.cpp.o.d"
  "/work/main/src/Rebuild.cpp" "src/CMakeFiles/coconet_objects.dir/Rebuild.cpp.o" "gcc" "src/CMakeFiles/coconet_objects.dir/Rebuild.cpp.o.d"
  "/work/main/src/Reference.cpp" "src/CMakeFiles/coconet_objects.dir/Reference.cpp.o" "gcc" "src/CMakeFiles/coconet_objects.dir/Reference.cpp.o.d"
  "/work/main/src/Schedule.cpp" "src/CMakeFiles/coconet_objects.dir/Schedule.cpp.o" "gcc" "src/CMakeFiles/coconet_objects.dir/Schedule.cpp.o.d"
  "/work/main/src/ScheduledReads.cpp" "src/CMakeFiles/coconet_objects.dir/ScheduledReads.cpp.o" "gcc" "src/CMakeFiles/coconet_objects.dir/ScheduledReads.cpp.o.d"
  )

# Targets to which this target links which contain Fortran sources.
set(CMAKE_Fortran_TARGET_LINKED_INFO_FILES
  )

# Targets to which this target links which contain Fortran sources.
set(CMAKE_Fortran_TARGET_FORWARD_LINKED_INFO_FILES
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
