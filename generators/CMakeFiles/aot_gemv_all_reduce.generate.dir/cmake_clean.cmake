file(REMOVE_RECURSE
  "CMakeFiles/aot_gemv_all_reduce.generate"
  "aot_gemv_all_reduce.coconet/aot_gemv_all_reduce.cpp"
  "aot_gemv_all_reduce.coconet/aot_gemv_all_reduce.h"
  "aot_gemv_all_reduce.coconet/aot_gemv_all_reduce_halide.a"
)

# Per-language clean rules from dependency scanning.
foreach(lang )
  include(CMakeFiles/aot_gemv_all_reduce.generate.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
