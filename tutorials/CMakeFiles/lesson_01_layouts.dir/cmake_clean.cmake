file(REMOVE_RECURSE
  "CMakeFiles/lesson_01_layouts.dir/lesson_01_layouts.cpp.o"
  "CMakeFiles/lesson_01_layouts.dir/lesson_01_layouts.cpp.o.d"
  "lesson_01_layouts"
  "lesson_01_layouts.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/lesson_01_layouts.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
