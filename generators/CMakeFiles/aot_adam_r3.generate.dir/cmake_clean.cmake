file(REMOVE_RECURSE
  "CMakeFiles/aot_adam_r3.generate"
  "aot_adam_r3.coconet/aot_adam_r3.cpp"
  "aot_adam_r3.coconet/aot_adam_r3.h"
  "aot_adam_r3.coconet/aot_adam_r3_halide.a"
)

# Per-language clean rules from dependency scanning.
foreach(lang )
  include(CMakeFiles/aot_adam_r3.generate.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
