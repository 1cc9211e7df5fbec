file(REMOVE_RECURSE
  "CMakeFiles/aot_megatron_mlp_split_opencl.generate"
  "aot_megatron_mlp_split_opencl.coconet/aot_megatron_mlp_split_opencl.cpp"
  "aot_megatron_mlp_split_opencl.coconet/aot_megatron_mlp_split_opencl.h"
  "aot_megatron_mlp_split_opencl.coconet/aot_megatron_mlp_split_opencl_halide.a"
)

# Per-language clean rules from dependency scanning.
foreach(lang )
  include(CMakeFiles/aot_megatron_mlp_split_opencl.generate.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
