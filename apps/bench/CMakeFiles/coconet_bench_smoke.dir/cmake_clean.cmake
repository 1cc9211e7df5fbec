file(REMOVE_RECURSE
  "CMakeFiles/coconet_bench_smoke.dir/baselines.cpp.o"
  "CMakeFiles/coconet_bench_smoke.dir/baselines.cpp.o.d"
  "CMakeFiles/coconet_bench_smoke.dir/bench_main.cpp.o"
  "CMakeFiles/coconet_bench_smoke.dir/bench_main.cpp.o.d"
  "CMakeFiles/coconet_bench_smoke.dir/blas.cpp.o"
  "CMakeFiles/coconet_bench_smoke.dir/blas.cpp.o.d"
  "coconet_bench_smoke"
  "coconet_bench_smoke.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/coconet_bench_smoke.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
