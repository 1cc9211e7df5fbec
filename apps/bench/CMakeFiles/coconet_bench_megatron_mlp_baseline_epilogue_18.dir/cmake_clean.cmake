file(REMOVE_RECURSE
  "CMakeFiles/coconet_bench_megatron_mlp_baseline_epilogue_18.dir/coconet_bench_megatron_mlp_baseline_epilogue_18.coconet/coconet_bench_megatron_mlp_baseline_epilogue_18.cpp.o"
  "CMakeFiles/coconet_bench_megatron_mlp_baseline_epilogue_18.dir/coconet_bench_megatron_mlp_baseline_epilogue_18.coconet/coconet_bench_megatron_mlp_baseline_epilogue_18.cpp.o.d"
  "libcoconet_bench_megatron_mlp_baseline_epilogue_18.a"
  "libcoconet_bench_megatron_mlp_baseline_epilogue_18.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/coconet_bench_megatron_mlp_baseline_epilogue_18.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
