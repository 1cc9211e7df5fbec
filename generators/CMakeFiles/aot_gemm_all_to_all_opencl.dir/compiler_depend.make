# Empty compiler generated dependencies file for aot_gemm_all_to_all_opencl.
# This may be replaced when dependencies are built.
