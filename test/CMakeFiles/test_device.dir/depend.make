# Empty dependencies file for test_device.
# This may be replaced when dependencies are built.
