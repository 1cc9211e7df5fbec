file(REMOVE_RECURSE
  "CMakeFiles/coconet_bench_megatron_mlp_baseline_epilogue_22.generate"
  "coconet_bench_megatron_mlp_baseline_epilogue_22.coconet/coconet_bench_megatron_mlp_baseline_epilogue_22.cpp"
  "coconet_bench_megatron_mlp_baseline_epilogue_22.coconet/coconet_bench_megatron_mlp_baseline_epilogue_22.h"
  "coconet_bench_megatron_mlp_baseline_epilogue_22.coconet/coconet_bench_megatron_mlp_baseline_epilogue_22_halide.a"
)

# Per-language clean rules from dependency scanning.
foreach(lang )
  include(CMakeFiles/coconet_bench_megatron_mlp_baseline_epilogue_22.generate.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
