file(REMOVE_RECURSE
  "CMakeFiles/lesson_07_aot_run.dir/lesson_07_aot_run.cpp.o"
  "CMakeFiles/lesson_07_aot_run.dir/lesson_07_aot_run.cpp.o.d"
  "lesson_07_aot_run"
  "lesson_07_aot_run.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/lesson_07_aot_run.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
