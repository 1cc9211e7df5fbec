file(REMOVE_RECURSE
  "CMakeFiles/coconet_bench_adam_unscheduled_24.dir/coconet_bench_adam_unscheduled_24.coconet/coconet_bench_adam_unscheduled_24.cpp.o"
  "CMakeFiles/coconet_bench_adam_unscheduled_24.dir/coconet_bench_adam_unscheduled_24.coconet/coconet_bench_adam_unscheduled_24.cpp.o.d"
  "libcoconet_bench_adam_unscheduled_24.a"
  "libcoconet_bench_adam_unscheduled_24.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/coconet_bench_adam_unscheduled_24.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
