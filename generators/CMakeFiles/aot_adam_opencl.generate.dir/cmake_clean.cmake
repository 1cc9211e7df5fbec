file(REMOVE_RECURSE
  "CMakeFiles/aot_adam_opencl.generate"
  "aot_adam_opencl.coconet/aot_adam_opencl.cpp"
  "aot_adam_opencl.coconet/aot_adam_opencl.h"
  "aot_adam_opencl.coconet/aot_adam_opencl_halide.a"
)

# Per-language clean rules from dependency scanning.
foreach(lang )
  include(CMakeFiles/aot_adam_opencl.generate.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
