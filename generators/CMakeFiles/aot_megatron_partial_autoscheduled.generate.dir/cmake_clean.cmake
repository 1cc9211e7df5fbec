file(REMOVE_RECURSE
  "CMakeFiles/aot_megatron_partial_autoscheduled.generate"
  "aot_megatron_partial_autoscheduled.coconet/aot_megatron_partial_autoscheduled.cpp"
  "aot_megatron_partial_autoscheduled.coconet/aot_megatron_partial_autoscheduled.h"
  "aot_megatron_partial_autoscheduled.coconet/aot_megatron_partial_autoscheduled_halide.a"
)

# Per-language clean rules from dependency scanning.
foreach(lang )
  include(CMakeFiles/aot_megatron_partial_autoscheduled.generate.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
