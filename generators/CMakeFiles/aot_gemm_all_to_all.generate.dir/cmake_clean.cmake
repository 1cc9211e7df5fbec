file(REMOVE_RECURSE
  "CMakeFiles/aot_gemm_all_to_all.generate"
  "aot_gemm_all_to_all.coconet/aot_gemm_all_to_all.cpp"
  "aot_gemm_all_to_all.coconet/aot_gemm_all_to_all.h"
  "aot_gemm_all_to_all.coconet/aot_gemm_all_to_all_halide.a"
)

# Per-language clean rules from dependency scanning.
foreach(lang )
  include(CMakeFiles/aot_gemm_all_to_all.generate.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
