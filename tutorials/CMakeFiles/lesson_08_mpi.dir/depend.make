# Empty dependencies file for lesson_08_mpi.
# This may be replaced when dependencies are built.
