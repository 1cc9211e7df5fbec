# Empty compiler generated dependencies file for mpi_fused_check.
# This may be replaced when dependencies are built.
