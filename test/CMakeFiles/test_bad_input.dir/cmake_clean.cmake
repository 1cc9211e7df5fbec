file(REMOVE_RECURSE
  "CMakeFiles/test_bad_input.dir/test_bad_input.cpp.o"
  "CMakeFiles/test_bad_input.dir/test_bad_input.cpp.o.d"
  "test_bad_input"
  "test_bad_input.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/test_bad_input.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
