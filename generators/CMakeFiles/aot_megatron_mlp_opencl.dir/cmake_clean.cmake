file(REMOVE_RECURSE
  "CMakeFiles/aot_megatron_mlp_opencl.dir/aot_megatron_mlp_opencl.coconet/aot_megatron_mlp_opencl.cpp.o"
  "CMakeFiles/aot_megatron_mlp_opencl.dir/aot_megatron_mlp_opencl.coconet/aot_megatron_mlp_opencl.cpp.o.d"
  "libaot_megatron_mlp_opencl.a"
  "libaot_megatron_mlp_opencl.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/aot_megatron_mlp_opencl.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
