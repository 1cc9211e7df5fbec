file(REMOVE_RECURSE
  "CMakeFiles/lesson_03_split_reorder.dir/lesson_03_split_reorder.cpp.o"
  "CMakeFiles/lesson_03_split_reorder.dir/lesson_03_split_reorder.cpp.o.d"
  "lesson_03_split_reorder"
  "lesson_03_split_reorder.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/lesson_03_split_reorder.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
