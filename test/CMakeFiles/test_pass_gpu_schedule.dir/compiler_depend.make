# Empty compiler generated dependencies file for test_pass_gpu_schedule.
# This may be replaced when dependencies are built.
