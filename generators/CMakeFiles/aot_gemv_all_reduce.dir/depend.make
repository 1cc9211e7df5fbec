# Empty dependencies file for aot_gemv_all_reduce.
# This may be replaced when dependencies are built.
