# CMAKE generated file: DO NOT EDIT!
# Timestamp file for compiler generated dependencies management for mpi_fused_check_asan.
