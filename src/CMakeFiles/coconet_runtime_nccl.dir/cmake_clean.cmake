file(REMOVE_RECURSE
  "CMakeFiles/coconet_runtime_nccl.dir/runtime/nccl/Nccl.cpp.o"
  "CMakeFiles/coconet_runtime_nccl.dir/runtime/nccl/Nccl.cpp.o.d"
  "libcoconet_runtime_nccl.a"
  "libcoconet_runtime_nccl.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/coconet_runtime_nccl.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
