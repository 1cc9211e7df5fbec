file(REMOVE_RECURSE
  "CMakeFiles/test_runtime_threads_asan.dir/runtime/test_runtime_threads.cpp.o"
  "CMakeFiles/test_runtime_threads_asan.dir/runtime/test_runtime_threads.cpp.o.d"
  "test_runtime_threads_asan"
  "test_runtime_threads_asan.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/test_runtime_threads_asan.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
