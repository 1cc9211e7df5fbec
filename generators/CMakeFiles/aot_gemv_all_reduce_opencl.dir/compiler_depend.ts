# CMAKE generated file: DO NOT EDIT!
# Timestamp file for compiler generated dependencies management for aot_gemv_all_reduce_opencl.
