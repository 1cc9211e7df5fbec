file(REMOVE_RECURSE
  "CMakeFiles/coconet_mpi_app.dir/mpi_main.cpp.o"
  "CMakeFiles/coconet_mpi_app.dir/mpi_main.cpp.o.d"
  "coconet_mpi_app"
  "coconet_mpi_app.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/coconet_mpi_app.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
