# Empty compiler generated dependencies file for mpi_timeout_check.
# This may be replaced when dependencies are built.
