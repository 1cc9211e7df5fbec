file(REMOVE_RECURSE
  "CMakeFiles/test_aot.dir/test_aot.cpp.o"
  "CMakeFiles/test_aot.dir/test_aot.cpp.o.d"
  "test_aot"
  "test_aot.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/test_aot.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
