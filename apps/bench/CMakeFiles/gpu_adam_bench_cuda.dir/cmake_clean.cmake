file(REMOVE_RECURSE
  "CMakeFiles/gpu_adam_bench_cuda.dir/gpu_adam_bench_cuda.coconet/gpu_adam_bench_cuda.cpp.o"
  "CMakeFiles/gpu_adam_bench_cuda.dir/gpu_adam_bench_cuda.coconet/gpu_adam_bench_cuda.cpp.o.d"
  "libgpu_adam_bench_cuda.a"
  "libgpu_adam_bench_cuda.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/gpu_adam_bench_cuda.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
