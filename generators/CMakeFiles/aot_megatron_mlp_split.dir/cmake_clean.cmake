file(REMOVE_RECURSE
  "CMakeFiles/aot_megatron_mlp_split.dir/aot_megatron_mlp_split.coconet/aot_megatron_mlp_split.cpp.o"
  "CMakeFiles/aot_megatron_mlp_split.dir/aot_megatron_mlp_split.coconet/aot_megatron_mlp_split.cpp.o.d"
  "libaot_megatron_mlp_split.a"
  "libaot_megatron_mlp_split.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/aot_megatron_mlp_split.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
