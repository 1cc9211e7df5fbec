file(REMOVE_RECURSE
  "CMakeFiles/lesson_07_sgd_cuda.dir/lesson_07_sgd_cuda.coconet/lesson_07_sgd_cuda.cpp.o"
  "CMakeFiles/lesson_07_sgd_cuda.dir/lesson_07_sgd_cuda.coconet/lesson_07_sgd_cuda.cpp.o.d"
  "liblesson_07_sgd_cuda.a"
  "liblesson_07_sgd_cuda.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/lesson_07_sgd_cuda.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
