file(REMOVE_RECURSE
  "CMakeFiles/aot_adam_cuda.generate"
  "aot_adam_cuda.coconet/aot_adam_cuda.cpp"
  "aot_adam_cuda.coconet/aot_adam_cuda.h"
  "aot_adam_cuda.coconet/aot_adam_cuda_halide.a"
)

# Per-language clean rules from dependency scanning.
foreach(lang )
  include(CMakeFiles/aot_adam_cuda.generate.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
