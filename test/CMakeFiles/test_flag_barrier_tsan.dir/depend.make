# Empty dependencies file for test_flag_barrier_tsan.
# This may be replaced when dependencies are built.
