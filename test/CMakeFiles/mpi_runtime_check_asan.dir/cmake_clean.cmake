file(REMOVE_RECURSE
  "CMakeFiles/mpi_runtime_check_asan.dir/runtime/mpi_runtime_check.cpp.o"
  "CMakeFiles/mpi_runtime_check_asan.dir/runtime/mpi_runtime_check.cpp.o.d"
  "mpi_runtime_check_asan"
  "mpi_runtime_check_asan.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/mpi_runtime_check_asan.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
