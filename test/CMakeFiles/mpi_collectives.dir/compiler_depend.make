# Empty compiler generated dependencies file for mpi_collectives.
# This may be replaced when dependencies are built.
