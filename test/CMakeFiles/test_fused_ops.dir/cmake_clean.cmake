file(REMOVE_RECURSE
  "CMakeFiles/test_fused_ops.dir/test_fused_ops.cpp.o"
  "CMakeFiles/test_fused_ops.dir/test_fused_ops.cpp.o.d"
  "test_fused_ops"
  "test_fused_ops.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/test_fused_ops.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
