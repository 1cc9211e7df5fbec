file(REMOVE_RECURSE
  "CMakeFiles/test_flag_barrier.dir/runtime/test_flag_barrier.cpp.o"
  "CMakeFiles/test_flag_barrier.dir/runtime/test_flag_barrier.cpp.o.d"
  "test_flag_barrier"
  "test_flag_barrier.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/test_flag_barrier.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
