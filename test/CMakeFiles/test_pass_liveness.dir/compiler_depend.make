# Empty compiler generated dependencies file for test_pass_liveness.
# This may be replaced when dependencies are built.
