# Empty compiler generated dependencies file for mpi_runtime_check.
# This may be replaced when dependencies are built.
