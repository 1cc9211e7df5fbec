# CMAKE generated file: DO NOT EDIT!
# Timestamp file for compiler generated dependencies management for lesson_09_gpu.
