file(REMOVE_RECURSE
  "CMakeFiles/lesson_09_gpu.dir/lesson_09_gpu.cpp.o"
  "CMakeFiles/lesson_09_gpu.dir/lesson_09_gpu.cpp.o.d"
  "lesson_09_gpu"
  "lesson_09_gpu.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/lesson_09_gpu.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
