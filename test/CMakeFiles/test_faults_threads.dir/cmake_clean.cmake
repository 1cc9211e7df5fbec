file(REMOVE_RECURSE
  "CMakeFiles/test_faults_threads.dir/runtime/test_faults_threads.cpp.o"
  "CMakeFiles/test_faults_threads.dir/runtime/test_faults_threads.cpp.o.d"
  "test_faults_threads"
  "test_faults_threads.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/test_faults_threads.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
