# Empty dependencies file for mpi_runtime_check_asan.
# This may be replaced when dependencies are built.
