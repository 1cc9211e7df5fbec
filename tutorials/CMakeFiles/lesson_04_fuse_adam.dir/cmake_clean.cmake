file(REMOVE_RECURSE
  "CMakeFiles/lesson_04_fuse_adam.dir/lesson_04_fuse_adam.cpp.o"
  "CMakeFiles/lesson_04_fuse_adam.dir/lesson_04_fuse_adam.cpp.o.d"
  "lesson_04_fuse_adam"
  "lesson_04_fuse_adam.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/lesson_04_fuse_adam.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
