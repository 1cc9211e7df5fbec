file(REMOVE_RECURSE
  "CMakeFiles/test_sequence_parallel.dir/test_sequence_parallel.cpp.o"
  "CMakeFiles/test_sequence_parallel.dir/test_sequence_parallel.cpp.o.d"
  "test_sequence_parallel"
  "test_sequence_parallel.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/test_sequence_parallel.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
