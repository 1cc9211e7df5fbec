# CMAKE generated file: DO NOT EDIT!
# Timestamp file for custom commands dependencies management for aot_gemm_all_to_all.generate.
