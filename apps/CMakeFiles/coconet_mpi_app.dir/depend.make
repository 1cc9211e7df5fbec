# Empty dependencies file for coconet_mpi_app.
# This may be replaced when dependencies are built.
