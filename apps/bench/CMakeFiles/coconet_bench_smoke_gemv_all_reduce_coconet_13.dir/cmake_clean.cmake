file(REMOVE_RECURSE
  "CMakeFiles/coconet_bench_smoke_gemv_all_reduce_coconet_13.dir/coconet_bench_smoke_gemv_all_reduce_coconet_13.coconet/coconet_bench_smoke_gemv_all_reduce_coconet_13.cpp.o"
  "CMakeFiles/coconet_bench_smoke_gemv_all_reduce_coconet_13.dir/coconet_bench_smoke_gemv_all_reduce_coconet_13.coconet/coconet_bench_smoke_gemv_all_reduce_coconet_13.cpp.o.d"
  "libcoconet_bench_smoke_gemv_all_reduce_coconet_13.a"
  "libcoconet_bench_smoke_gemv_all_reduce_coconet_13.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/coconet_bench_smoke_gemv_all_reduce_coconet_13.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
