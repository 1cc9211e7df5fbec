file(REMOVE_RECURSE
  "CMakeFiles/aot_adam.generate"
  "aot_adam.coconet/aot_adam.cpp"
  "aot_adam.coconet/aot_adam.h"
  "aot_adam.coconet/aot_adam_halide.a"
)

# Per-language clean rules from dependency scanning.
foreach(lang )
  include(CMakeFiles/aot_adam.generate.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
