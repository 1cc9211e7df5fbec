file(REMOVE_RECURSE
  "CMakeFiles/test_runtime_threads.dir/runtime/test_runtime_threads.cpp.o"
  "CMakeFiles/test_runtime_threads.dir/runtime/test_runtime_threads.cpp.o.d"
  "test_runtime_threads"
  "test_runtime_threads.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/test_runtime_threads.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
