# Empty custom commands generated dependencies file for aot_gemm_all_to_all_opencl.generate.
# This may be replaced when dependencies are built.
