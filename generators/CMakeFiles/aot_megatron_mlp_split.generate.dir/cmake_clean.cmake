file(REMOVE_RECURSE
  "CMakeFiles/aot_megatron_mlp_split.generate"
  "aot_megatron_mlp_split.coconet/aot_megatron_mlp_split.cpp"
  "aot_megatron_mlp_split.coconet/aot_megatron_mlp_split.h"
  "aot_megatron_mlp_split.coconet/aot_megatron_mlp_split_halide.a"
)

# Per-language clean rules from dependency scanning.
foreach(lang )
  include(CMakeFiles/aot_megatron_mlp_split.generate.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
