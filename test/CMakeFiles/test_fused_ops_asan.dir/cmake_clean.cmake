file(REMOVE_RECURSE
  "CMakeFiles/test_fused_ops_asan.dir/test_fused_ops.cpp.o"
  "CMakeFiles/test_fused_ops_asan.dir/test_fused_ops.cpp.o.d"
  "test_fused_ops_asan"
  "test_fused_ops_asan.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/test_fused_ops_asan.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
