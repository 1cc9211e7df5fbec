file(REMOVE_RECURSE
  "CMakeFiles/aot_megatron_mlp_none.generate"
  "aot_megatron_mlp_none.coconet/aot_megatron_mlp_none.cpp"
  "aot_megatron_mlp_none.coconet/aot_megatron_mlp_none.h"
  "aot_megatron_mlp_none.coconet/aot_megatron_mlp_none_halide.a"
)

# Per-language clean rules from dependency scanning.
foreach(lang )
  include(CMakeFiles/aot_megatron_mlp_none.generate.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
