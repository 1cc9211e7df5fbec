file(REMOVE_RECURSE
  "CMakeFiles/mpi_fault_check.dir/runtime/mpi_fault_check.cpp.o"
  "CMakeFiles/mpi_fault_check.dir/runtime/mpi_fault_check.cpp.o.d"
  "mpi_fault_check"
  "mpi_fault_check.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/mpi_fault_check.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
