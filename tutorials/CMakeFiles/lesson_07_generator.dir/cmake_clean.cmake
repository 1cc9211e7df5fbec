file(REMOVE_RECURSE
  "CMakeFiles/lesson_07_generator.dir/lesson_07_aot_generate.cpp.o"
  "CMakeFiles/lesson_07_generator.dir/lesson_07_aot_generate.cpp.o.d"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/lesson_07_generator.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
