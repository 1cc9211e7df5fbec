file(REMOVE_RECURSE
  "CMakeFiles/aot_lamb_cuda.generate"
  "aot_lamb_cuda.coconet/aot_lamb_cuda.cpp"
  "aot_lamb_cuda.coconet/aot_lamb_cuda.h"
  "aot_lamb_cuda.coconet/aot_lamb_cuda_halide.a"
)

# Per-language clean rules from dependency scanning.
foreach(lang )
  include(CMakeFiles/aot_lamb_cuda.generate.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
