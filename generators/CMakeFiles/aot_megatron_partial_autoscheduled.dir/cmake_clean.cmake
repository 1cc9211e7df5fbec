file(REMOVE_RECURSE
  "CMakeFiles/aot_megatron_partial_autoscheduled.dir/aot_megatron_partial_autoscheduled.coconet/aot_megatron_partial_autoscheduled.cpp.o"
  "CMakeFiles/aot_megatron_partial_autoscheduled.dir/aot_megatron_partial_autoscheduled.coconet/aot_megatron_partial_autoscheduled.cpp.o.d"
  "libaot_megatron_partial_autoscheduled.a"
  "libaot_megatron_partial_autoscheduled.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/aot_megatron_partial_autoscheduled.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
