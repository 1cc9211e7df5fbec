file(REMOVE_RECURSE
  "CMakeFiles/test_flag_barrier_tsan.dir/runtime/test_flag_barrier.cpp.o"
  "CMakeFiles/test_flag_barrier_tsan.dir/runtime/test_flag_barrier.cpp.o.d"
  "test_flag_barrier_tsan"
  "test_flag_barrier_tsan.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/test_flag_barrier_tsan.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
