# Empty dependencies file for mpi_fused_check_asan.
# This may be replaced when dependencies are built.
