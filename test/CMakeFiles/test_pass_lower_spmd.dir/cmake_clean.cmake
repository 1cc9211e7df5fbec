file(REMOVE_RECURSE
  "CMakeFiles/test_pass_lower_spmd.dir/test_pass_lower_spmd.cpp.o"
  "CMakeFiles/test_pass_lower_spmd.dir/test_pass_lower_spmd.cpp.o.d"
  "test_pass_lower_spmd"
  "test_pass_lower_spmd.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/test_pass_lower_spmd.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
