file(REMOVE_RECURSE
  "CMakeFiles/coconet_bench_gemm_all_to_all_coconet_22.dir/coconet_bench_gemm_all_to_all_coconet_22.coconet/coconet_bench_gemm_all_to_all_coconet_22.cpp.o"
  "CMakeFiles/coconet_bench_gemm_all_to_all_coconet_22.dir/coconet_bench_gemm_all_to_all_coconet_22.coconet/coconet_bench_gemm_all_to_all_coconet_22.cpp.o.d"
  "libcoconet_bench_gemm_all_to_all_coconet_22.a"
  "libcoconet_bench_gemm_all_to_all_coconet_22.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/coconet_bench_gemm_all_to_all_coconet_22.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
