file(REMOVE_RECURSE
  "CMakeFiles/aot_gemv_all_reduce_opencl.generate"
  "aot_gemv_all_reduce_opencl.coconet/aot_gemv_all_reduce_opencl.cpp"
  "aot_gemv_all_reduce_opencl.coconet/aot_gemv_all_reduce_opencl.h"
  "aot_gemv_all_reduce_opencl.coconet/aot_gemv_all_reduce_opencl_halide.a"
)

# Per-language clean rules from dependency scanning.
foreach(lang )
  include(CMakeFiles/aot_gemv_all_reduce_opencl.generate.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
