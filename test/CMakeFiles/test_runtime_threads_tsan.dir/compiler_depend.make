# Empty compiler generated dependencies file for test_runtime_threads_tsan.
# This may be replaced when dependencies are built.
