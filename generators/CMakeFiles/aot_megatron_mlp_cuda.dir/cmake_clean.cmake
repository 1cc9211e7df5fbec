file(REMOVE_RECURSE
  "CMakeFiles/aot_megatron_mlp_cuda.dir/aot_megatron_mlp_cuda.coconet/aot_megatron_mlp_cuda.cpp.o"
  "CMakeFiles/aot_megatron_mlp_cuda.dir/aot_megatron_mlp_cuda.coconet/aot_megatron_mlp_cuda.cpp.o.d"
  "libaot_megatron_mlp_cuda.a"
  "libaot_megatron_mlp_cuda.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/aot_megatron_mlp_cuda.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
