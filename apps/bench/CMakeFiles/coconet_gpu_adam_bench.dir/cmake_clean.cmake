file(REMOVE_RECURSE
  "CMakeFiles/coconet_gpu_adam_bench.dir/gpu_adam.cpp.o"
  "CMakeFiles/coconet_gpu_adam_bench.dir/gpu_adam.cpp.o.d"
  "coconet_gpu_adam_bench"
  "coconet_gpu_adam_bench.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/coconet_gpu_adam_bench.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
