# CMAKE generated file: DO NOT EDIT!
# Timestamp file for custom commands dependencies management for aot_megatron_mlp_opencl.generate.
