file(REMOVE_RECURSE
  "CMakeFiles/coconet_bench.dir/baselines.cpp.o"
  "CMakeFiles/coconet_bench.dir/baselines.cpp.o.d"
  "CMakeFiles/coconet_bench.dir/bench_main.cpp.o"
  "CMakeFiles/coconet_bench.dir/bench_main.cpp.o.d"
  "CMakeFiles/coconet_bench.dir/blas.cpp.o"
  "CMakeFiles/coconet_bench.dir/blas.cpp.o.d"
  "coconet_bench"
  "coconet_bench.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/coconet_bench.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
