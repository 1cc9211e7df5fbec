file(REMOVE_RECURSE
  "CMakeFiles/aot_megatron_mlp_cuda.generate"
  "aot_megatron_mlp_cuda.coconet/aot_megatron_mlp_cuda.cpp"
  "aot_megatron_mlp_cuda.coconet/aot_megatron_mlp_cuda.h"
  "aot_megatron_mlp_cuda.coconet/aot_megatron_mlp_cuda_halide.a"
)

# Per-language clean rules from dependency scanning.
foreach(lang )
  include(CMakeFiles/aot_megatron_mlp_cuda.generate.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
