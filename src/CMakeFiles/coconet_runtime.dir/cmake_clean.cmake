file(REMOVE_RECURSE
  "CMakeFiles/coconet_runtime.dir/runtime/Aot.cpp.o"
  "CMakeFiles/coconet_runtime.dir/runtime/Aot.cpp.o.d"
  "CMakeFiles/coconet_runtime.dir/runtime/Box.cpp.o"
  "CMakeFiles/coconet_runtime.dir/runtime/Box.cpp.o.d"
  "CMakeFiles/coconet_runtime.dir/runtime/Collective.cpp.o"
  "CMakeFiles/coconet_runtime.dir/runtime/Collective.cpp.o.d"
  "CMakeFiles/coconet_runtime.dir/runtime/Comm.cpp.o"
  "CMakeFiles/coconet_runtime.dir/runtime/Comm.cpp.o.d"
  "CMakeFiles/coconet_runtime.dir/runtime/Device.cpp.o"
  "CMakeFiles/coconet_runtime.dir/runtime/Device.cpp.o.d"
  "CMakeFiles/coconet_runtime.dir/runtime/Devices.cpp.o"
  "CMakeFiles/coconet_runtime.dir/runtime/Devices.cpp.o.d"
  "CMakeFiles/coconet_runtime.dir/runtime/Entry.cpp.o"
  "CMakeFiles/coconet_runtime.dir/runtime/Entry.cpp.o.d"
  "CMakeFiles/coconet_runtime.dir/runtime/Errors.cpp.o"
  "CMakeFiles/coconet_runtime.dir/runtime/Errors.cpp.o.d"
  "CMakeFiles/coconet_runtime.dir/runtime/Fault.cpp.o"
  "CMakeFiles/coconet_runtime.dir/runtime/Fault.cpp.o.d"
  "CMakeFiles/coconet_runtime.dir/runtime/Fused.cpp.o"
  "CMakeFiles/coconet_runtime.dir/runtime/Fused.cpp.o.d"
  "CMakeFiles/coconet_runtime.dir/runtime/Mpi.cpp.o"
  "CMakeFiles/coconet_runtime.dir/runtime/Mpi.cpp.o.d"
  "CMakeFiles/coconet_runtime.dir/runtime/Pack.cpp.o"
  "CMakeFiles/coconet_runtime.dir/runtime/Pack.cpp.o.d"
  "CMakeFiles/coconet_runtime.dir/runtime/Partition.cpp.o"
  "CMakeFiles/coconet_runtime.dir/runtime/Partition.cpp.o.d"
  "CMakeFiles/coconet_runtime.dir/runtime/Reduce.cpp.o"
  "CMakeFiles/coconet_runtime.dir/runtime/Reduce.cpp.o.d"
  "CMakeFiles/coconet_runtime.dir/runtime/Threads.cpp.o"
  "CMakeFiles/coconet_runtime.dir/runtime/Threads.cpp.o.d"
  "libcoconet_runtime.a"
  "libcoconet_runtime.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/coconet_runtime.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
