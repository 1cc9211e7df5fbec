# Empty custom commands generated dependencies file for aot_gemv_all_reduce.generate.
# This may be replaced when dependencies are built.
