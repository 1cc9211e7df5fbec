
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/main/src/runtime/Aot.cpp" "src/CMakeFiles/coconet_runtime_asan.dir/runtime/Aot.cpp.o" "gcc" "src/CMakeFiles/coconet_runtime_asan.dir/runtime/Aot.cpp.o.d"
  "/work/main/src/runtime/Box.cpp" "src/CMakeFiles/coconet_runtime_asan.dir/runtime/Box.cpp.o" "gcc" "src/CMakeFiles/coconet_runtime_asan.dir/runtime/Box.cpp.o.d"
  "/work/main/src/runtime/Collective.cpp" "src/CMakeFiles/coconet_runtime_asan.dir/runtime/Collective.cpp.o" "gcc" "src/CMakeFiles/coconet_runtime_asan.dir/runtime/Collective.cpp.o.d"
  "/work/main/src/runtime/Comm.cpp" "src/CMakeFiles/coconet_runtime_asan.dir/runtime/Comm.cpp.o" "gcc" "src/CMakeFiles/coconet_runtime_asan.dir/runtime/Comm.cpp.o.d"
  "/work/main/src/runtime/Device.cpp" "src/CMakeFiles/coconet_runtime_asan.dir/runtime/Device.cpp.o" "gcc" "src/CMakeFiles/coconet_runtime_asan.dir/runtime/Device.cpp.o.d"
  "/work/main/src/runtime/Devices.cpp" "src/CMakeFiles/coconet_runtime_asan.dir/runtime/Devices.cpp.o" "gcc" "src/CMakeFiles/coconet_runtime_asan.dir/runtime/Devices.cpp.o.d"
  "/work/main/src/runtime/Entry.cpp" "src/CMakeFiles/coconet_runtime_asan.dir/runtime/Entry.cpp.o" "gcc" "src/CMakeFiles/coconet_runtime_asan.dir/runtime/Entry.cpp.o.d"
  "/work/main/src/runtime/Errors.cpp" "src/CMakeFiles/coconet_runtime_asan.dir/runtime/Errors.cpp.o" "gcc" "src/CMakeFiles/coconet_runtime_asan.dir/runtime/Errors.cpp.o.d"
  "/work/main/src/runtime/Fault.cpp" "src/CMakeFiles/coconet_runtime_asan.dir/runtime/Fault.cpp.o" "gcc" "src/CMakeFiles/coconet_runtime_asan.dir/runtime/Fault.cpp.o.d"
  "/work/main/src/runtime/Fused.cpp" "src/CMakeFiles/coconet_runtime_asan.dir/runtime/Fused.cpp.o" "gcc" "src/CMakeFiles/coconet_runtime_asan.dir/runtime/Fused.cpp.o.d"
  "/work/main/src/runtime/Mpi.cpp" "src/CMakeFiles/coconet_runtime_asan.dir/runtime/Mpi.cpp.o" "gcc" "src/CMakeFiles/coconet_runtime_asan.dir/runtime/Mpi.cpp.o.d"
  "/work/main/src/runtime/Pack.cpp" "src/CMakeFiles/coconet_runtime_asan.dir/runtime/Pack.cpp.o" "gcc" "src/CMakeFiles/coconet_runtime_asan.dir/runtime/Pack.cpp.o.d"
  "/work/main/src/runtime/Partition.cpp" "src/CMakeFiles/coconet_runtime_asan.dir/runtime/Partition.cpp.o" "gcc" "src/CMakeFiles/coconet_runtime_asan.dir/runtime/Partition.cpp.o.d"
  "/work/main/src/runtime/Reduce.cpp" "src/CMakeFiles/coconet_runtime_asan.dir/runtime/Reduce.cpp.o" "gcc" "src/CMakeFiles/coconet_runtime_asan.dir/runtime/Reduce.cpp.o.d"
  "/work/main/src/runtime/Threads.cpp" "src/CMakeFiles/coconet_runtime_asan.dir/runtime/Threads.cpp.o" "gcc" "src/CMakeFiles/coconet_runtime_asan.dir/runtime/Threads.cpp.o.d"
  )

# Targets to which this target links which contain Fortran sources.
set(CMAKE_Fortran_TARGET_LINKED_INFO_FILES
  )

# Targets to which this target links which contain Fortran sources.
set(CMAKE_Fortran_TARGET_FORWARD_LINKED_INFO_FILES
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
