file(REMOVE_RECURSE
  "CMakeFiles/coconet_runtime_asan.dir/runtime/Aot.cpp.o"
  "CMakeFiles/coconet_runtime_asan.dir/runtime/Aot.cpp.o.d"
  "CMakeFiles/coconet_runtime_asan.dir/runtime/Box.cpp.o"
  "CMakeFiles/coconet_runtime_asan.dir/runtime/Box.cpp.o.d"
  "CMakeFiles/coconet_runtime_asan.dir/runtime/Collective.cpp.o"
  "CMakeFiles/coconet_runtime_asan.dir/runtime/Collective.cpp.o.d"
  "CMakeFiles/coconet_runtime_asan.dir/runtime/Comm.cpp.o"
  "CMakeFiles/coconet_runtime_asan.dir/runtime/Comm.cpp.o.d"
  "CMakeFiles/coconet_runtime_asan.dir/runtime/Device.cpp.o"
  "CMakeFiles/coconet_runtime_asan.dir/runtime/Device.cpp.o.d"
  "CMakeFiles/coconet_runtime_asan.dir/runtime/Devices.cpp.o"
  "CMakeFiles/coconet_runtime_asan.dir/runtime/Devices.cpp.o.d"
  "CMakeFiles/coconet_runtime_asan.dir/runtime/Entry.cpp.o"
  "CMakeFiles/coconet_runtime_asan.dir/runtime/Entry.cpp.o.d"
  "CMakeFiles/coconet_runtime_asan.dir/runtime/Errors.cpp.o"
  "CMakeFiles/coconet_runtime_asan.dir/runtime/Errors.cpp.o.d"
  "CMakeFiles/coconet_runtime_asan.dir/runtime/Fault.cpp.o"
  "CMakeFiles/coconet_runtime_asan.dir/runtime/Fault.cpp.o.d"
  "CMakeFiles/coconet_runtime_asan.dir/runtime/Fused.cpp.o"
  "CMakeFiles/coconet_runtime_asan.dir/runtime/Fused.cpp.o.d"
  "CMakeFiles/coconet_runtime_asan.dir/runtime/Mpi.cpp.o"
  "CMakeFiles/coconet_runtime_asan.dir/runtime/Mpi.cpp.o.d"
  "CMakeFiles/coconet_runtime_asan.dir/runtime/Pack.cpp.o"
  "CMakeFiles/coconet_runtime_asan.dir/runtime/Pack.cpp.o.d"
  "CMakeFiles/coconet_runtime_asan.dir/runtime/Partition.cpp.o"
  "CMakeFiles/coconet_runtime_asan.dir/runtime/Partition.cpp.o.d"
  "CMakeFiles/coconet_runtime_asan.dir/runtime/Reduce.cpp.o"
  "CMakeFiles/coconet_runtime_asan.dir/runtime/Reduce.cpp.o.d"
  "CMakeFiles/coconet_runtime_asan.dir/runtime/Threads.cpp.o"
  "CMakeFiles/coconet_runtime_asan.dir/runtime/Threads.cpp.o.d"
  "libcoconet_runtime_asan.a"
  "libcoconet_runtime_asan.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/coconet_runtime_asan.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
