file(REMOVE_RECURSE
  "CMakeFiles/lesson_07_sgd.generate"
  "lesson_07_sgd.coconet/lesson_07_sgd.cpp"
  "lesson_07_sgd.coconet/lesson_07_sgd.h"
  "lesson_07_sgd.coconet/lesson_07_sgd_halide.a"
)

# Per-language clean rules from dependency scanning.
foreach(lang )
  include(CMakeFiles/lesson_07_sgd.generate.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
