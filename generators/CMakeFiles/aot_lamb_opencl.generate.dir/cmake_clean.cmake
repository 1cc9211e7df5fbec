file(REMOVE_RECURSE
  "CMakeFiles/aot_lamb_opencl.generate"
  "aot_lamb_opencl.coconet/aot_lamb_opencl.cpp"
  "aot_lamb_opencl.coconet/aot_lamb_opencl.h"
  "aot_lamb_opencl.coconet/aot_lamb_opencl_halide.a"
)

# Per-language clean rules from dependency scanning.
foreach(lang )
  include(CMakeFiles/aot_lamb_opencl.generate.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
