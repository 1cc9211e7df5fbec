# Empty dependencies file for mpi_fault_check.
# This may be replaced when dependencies are built.
