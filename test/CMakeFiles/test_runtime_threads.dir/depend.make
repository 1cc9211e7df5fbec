# Empty dependencies file for test_runtime_threads.
# This may be replaced when dependencies are built.
