file(REMOVE_RECURSE
  "CMakeFiles/test_fused_asan.dir/test_fused.cpp.o"
  "CMakeFiles/test_fused_asan.dir/test_fused.cpp.o.d"
  "test_fused_asan"
  "test_fused_asan.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/test_fused_asan.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
