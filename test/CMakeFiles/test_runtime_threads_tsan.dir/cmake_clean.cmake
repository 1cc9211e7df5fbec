file(REMOVE_RECURSE
  "CMakeFiles/test_runtime_threads_tsan.dir/runtime/test_runtime_threads.cpp.o"
  "CMakeFiles/test_runtime_threads_tsan.dir/runtime/test_runtime_threads.cpp.o.d"
  "test_runtime_threads_tsan"
  "test_runtime_threads_tsan.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/test_runtime_threads_tsan.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
