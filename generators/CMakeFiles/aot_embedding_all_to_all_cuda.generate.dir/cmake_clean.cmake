file(REMOVE_RECURSE
  "CMakeFiles/aot_embedding_all_to_all_cuda.generate"
  "aot_embedding_all_to_all_cuda.coconet/aot_embedding_all_to_all_cuda.cpp"
  "aot_embedding_all_to_all_cuda.coconet/aot_embedding_all_to_all_cuda.h"
  "aot_embedding_all_to_all_cuda.coconet/aot_embedding_all_to_all_cuda_halide.a"
)

# Per-language clean rules from dependency scanning.
foreach(lang )
  include(CMakeFiles/aot_embedding_all_to_all_cuda.generate.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
