file(REMOVE_RECURSE
  "CMakeFiles/coconet_bench_adam_coconet_26.dir/coconet_bench_adam_coconet_26.coconet/coconet_bench_adam_coconet_26.cpp.o"
  "CMakeFiles/coconet_bench_adam_coconet_26.dir/coconet_bench_adam_coconet_26.coconet/coconet_bench_adam_coconet_26.cpp.o.d"
  "libcoconet_bench_adam_coconet_26.a"
  "libcoconet_bench_adam_coconet_26.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/coconet_bench_adam_coconet_26.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
