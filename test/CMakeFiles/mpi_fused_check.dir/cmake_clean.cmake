file(REMOVE_RECURSE
  "CMakeFiles/mpi_fused_check.dir/runtime/mpi_fused_check.cpp.o"
  "CMakeFiles/mpi_fused_check.dir/runtime/mpi_fused_check.cpp.o.d"
  "mpi_fused_check"
  "mpi_fused_check.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/mpi_fused_check.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
