file(REMOVE_RECURSE
  "CMakeFiles/lesson_02_collectives.dir/lesson_02_collectives.cpp.o"
  "CMakeFiles/lesson_02_collectives.dir/lesson_02_collectives.cpp.o.d"
  "lesson_02_collectives"
  "lesson_02_collectives.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/lesson_02_collectives.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
