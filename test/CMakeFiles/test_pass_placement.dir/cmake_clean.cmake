file(REMOVE_RECURSE
  "CMakeFiles/test_pass_placement.dir/test_pass_placement.cpp.o"
  "CMakeFiles/test_pass_placement.dir/test_pass_placement.cpp.o.d"
  "test_pass_placement"
  "test_pass_placement.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/test_pass_placement.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
