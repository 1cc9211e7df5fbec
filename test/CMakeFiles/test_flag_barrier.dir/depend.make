# Empty dependencies file for test_flag_barrier.
# This may be replaced when dependencies are built.
