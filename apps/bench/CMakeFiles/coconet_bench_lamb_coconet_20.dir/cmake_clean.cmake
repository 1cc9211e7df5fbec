file(REMOVE_RECURSE
  "CMakeFiles/coconet_bench_lamb_coconet_20.dir/coconet_bench_lamb_coconet_20.coconet/coconet_bench_lamb_coconet_20.cpp.o"
  "CMakeFiles/coconet_bench_lamb_coconet_20.dir/coconet_bench_lamb_coconet_20.coconet/coconet_bench_lamb_coconet_20.cpp.o.d"
  "libcoconet_bench_lamb_coconet_20.a"
  "libcoconet_bench_lamb_coconet_20.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/coconet_bench_lamb_coconet_20.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
