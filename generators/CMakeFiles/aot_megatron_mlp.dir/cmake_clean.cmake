file(REMOVE_RECURSE
  "CMakeFiles/aot_megatron_mlp.dir/aot_megatron_mlp.coconet/aot_megatron_mlp.cpp.o"
  "CMakeFiles/aot_megatron_mlp.dir/aot_megatron_mlp.coconet/aot_megatron_mlp.cpp.o.d"
  "libaot_megatron_mlp.a"
  "libaot_megatron_mlp.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/aot_megatron_mlp.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
