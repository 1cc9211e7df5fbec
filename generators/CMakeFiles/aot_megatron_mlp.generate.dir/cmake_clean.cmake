file(REMOVE_RECURSE
  "CMakeFiles/aot_megatron_mlp.generate"
  "aot_megatron_mlp.coconet/aot_megatron_mlp.cpp"
  "aot_megatron_mlp.coconet/aot_megatron_mlp.h"
  "aot_megatron_mlp.coconet/aot_megatron_mlp_halide.a"
)

# Per-language clean rules from dependency scanning.
foreach(lang )
  include(CMakeFiles/aot_megatron_mlp.generate.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
