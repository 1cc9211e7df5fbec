file(REMOVE_RECURSE
  "CMakeFiles/coconet_bench_lamb_unscheduled_16.dir/coconet_bench_lamb_unscheduled_16.coconet/coconet_bench_lamb_unscheduled_16.cpp.o"
  "CMakeFiles/coconet_bench_lamb_unscheduled_16.dir/coconet_bench_lamb_unscheduled_16.coconet/coconet_bench_lamb_unscheduled_16.cpp.o.d"
  "libcoconet_bench_lamb_unscheduled_16.a"
  "libcoconet_bench_lamb_unscheduled_16.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/coconet_bench_lamb_unscheduled_16.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
