# Empty compiler generated dependencies file for test_pass_fusion.
# This may be replaced when dependencies are built.
