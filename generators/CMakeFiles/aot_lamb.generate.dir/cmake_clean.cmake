file(REMOVE_RECURSE
  "CMakeFiles/aot_lamb.generate"
  "aot_lamb.coconet/aot_lamb.cpp"
  "aot_lamb.coconet/aot_lamb.h"
  "aot_lamb.coconet/aot_lamb_halide.a"
)

# Per-language clean rules from dependency scanning.
foreach(lang )
  include(CMakeFiles/aot_lamb.generate.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
