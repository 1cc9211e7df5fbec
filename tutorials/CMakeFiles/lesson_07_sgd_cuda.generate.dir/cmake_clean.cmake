file(REMOVE_RECURSE
  "CMakeFiles/lesson_07_sgd_cuda.generate"
  "lesson_07_sgd_cuda.coconet/lesson_07_sgd_cuda.cpp"
  "lesson_07_sgd_cuda.coconet/lesson_07_sgd_cuda.h"
  "lesson_07_sgd_cuda.coconet/lesson_07_sgd_cuda_halide.a"
)

# Per-language clean rules from dependency scanning.
foreach(lang )
  include(CMakeFiles/lesson_07_sgd_cuda.generate.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
