file(REMOVE_RECURSE
  "CMakeFiles/test_leak_asan.dir/test_leak.cpp.o"
  "CMakeFiles/test_leak_asan.dir/test_leak.cpp.o.d"
  "test_leak_asan"
  "test_leak_asan.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/test_leak_asan.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
