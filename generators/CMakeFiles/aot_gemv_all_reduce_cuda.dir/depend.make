# Empty dependencies file for aot_gemv_all_reduce_cuda.
# This may be replaced when dependencies are built.
