file(REMOVE_RECURSE
  "CMakeFiles/lesson_06_pipeline.dir/lesson_06_pipeline.cpp.o"
  "CMakeFiles/lesson_06_pipeline.dir/lesson_06_pipeline.cpp.o.d"
  "lesson_06_pipeline"
  "lesson_06_pipeline.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/lesson_06_pipeline.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
