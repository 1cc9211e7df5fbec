# CMAKE generated file: DO NOT EDIT!
# Timestamp file for custom commands dependencies management for aot_gemv_all_reduce_opencl.generate.
