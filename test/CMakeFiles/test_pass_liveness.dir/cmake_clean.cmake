file(REMOVE_RECURSE
  "CMakeFiles/test_pass_liveness.dir/test_pass_liveness.cpp.o"
  "CMakeFiles/test_pass_liveness.dir/test_pass_liveness.cpp.o.d"
  "test_pass_liveness"
  "test_pass_liveness.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/test_pass_liveness.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
