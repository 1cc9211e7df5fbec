# CMAKE generated file: DO NOT EDIT!
# Timestamp file for custom commands dependencies management for aot_embedding_all_to_all_opencl.generate.
