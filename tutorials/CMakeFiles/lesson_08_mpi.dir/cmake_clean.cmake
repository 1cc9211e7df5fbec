file(REMOVE_RECURSE
  "CMakeFiles/lesson_08_mpi.dir/lesson_08_mpi.cpp.o"
  "CMakeFiles/lesson_08_mpi.dir/lesson_08_mpi.cpp.o.d"
  "lesson_08_mpi"
  "lesson_08_mpi.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/lesson_08_mpi.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
