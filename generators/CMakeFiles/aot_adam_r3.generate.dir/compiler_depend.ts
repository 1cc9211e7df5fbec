# CMAKE generated file: DO NOT EDIT!
# Timestamp file for custom commands dependencies management for aot_adam_r3.generate.
