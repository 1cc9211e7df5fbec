# Empty dependencies file for test_faults_threads.
# This may be replaced when dependencies are built.
