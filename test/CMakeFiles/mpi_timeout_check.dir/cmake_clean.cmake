file(REMOVE_RECURSE
  "CMakeFiles/mpi_timeout_check.dir/runtime/mpi_timeout_check.cpp.o"
  "CMakeFiles/mpi_timeout_check.dir/runtime/mpi_timeout_check.cpp.o.d"
  "mpi_timeout_check"
  "mpi_timeout_check.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/mpi_timeout_check.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
