# Empty dependencies file for test_runtime_threads_asan.
# This may be replaced when dependencies are built.
