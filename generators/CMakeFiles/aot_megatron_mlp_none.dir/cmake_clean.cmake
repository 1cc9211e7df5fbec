file(REMOVE_RECURSE
  "CMakeFiles/aot_megatron_mlp_none.dir/aot_megatron_mlp_none.coconet/aot_megatron_mlp_none.cpp.o"
  "CMakeFiles/aot_megatron_mlp_none.dir/aot_megatron_mlp_none.coconet/aot_megatron_mlp_none.cpp.o.d"
  "libaot_megatron_mlp_none.a"
  "libaot_megatron_mlp_none.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/aot_megatron_mlp_none.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
