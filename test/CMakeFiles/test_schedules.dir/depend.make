# Empty dependencies file for test_schedules.
# This may be replaced when dependencies are built.
