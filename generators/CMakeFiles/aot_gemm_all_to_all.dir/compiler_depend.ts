# CMAKE generated file: DO NOT EDIT!
# Timestamp file for compiler generated dependencies management for aot_gemm_all_to_all.
