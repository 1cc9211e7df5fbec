file(REMOVE_RECURSE
  "CMakeFiles/lesson_07_sgd.dir/lesson_07_sgd.coconet/lesson_07_sgd.cpp.o"
  "CMakeFiles/lesson_07_sgd.dir/lesson_07_sgd.coconet/lesson_07_sgd.cpp.o.d"
  "liblesson_07_sgd.a"
  "liblesson_07_sgd.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/lesson_07_sgd.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
