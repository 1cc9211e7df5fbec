file(REMOVE_RECURSE
  "CMakeFiles/test_fused.dir/test_fused.cpp.o"
  "CMakeFiles/test_fused.dir/test_fused.cpp.o.d"
  "test_fused"
  "test_fused.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/test_fused.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
