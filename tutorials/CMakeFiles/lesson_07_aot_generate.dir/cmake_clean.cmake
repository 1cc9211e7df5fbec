file(REMOVE_RECURSE
  "lesson_07_aot_generate"
  "lesson_07_aot_generate.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/lesson_07_aot_generate.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
