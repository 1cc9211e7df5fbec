file(REMOVE_RECURSE
  "CMakeFiles/lesson_05_overlap_megatron.dir/lesson_05_overlap_megatron.cpp.o"
  "CMakeFiles/lesson_05_overlap_megatron.dir/lesson_05_overlap_megatron.cpp.o.d"
  "lesson_05_overlap_megatron"
  "lesson_05_overlap_megatron.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/lesson_05_overlap_megatron.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
