file(REMOVE_RECURSE
  "CMakeFiles/test_pass_fusion.dir/test_pass_fusion.cpp.o"
  "CMakeFiles/test_pass_fusion.dir/test_pass_fusion.cpp.o.d"
  "test_pass_fusion"
  "test_pass_fusion.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/test_pass_fusion.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
