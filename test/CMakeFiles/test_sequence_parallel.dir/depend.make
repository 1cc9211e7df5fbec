# Empty dependencies file for test_sequence_parallel.
# This may be replaced when dependencies are built.
