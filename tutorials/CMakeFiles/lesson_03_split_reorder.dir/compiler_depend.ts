# CMAKE generated file: DO NOT EDIT!
# Timestamp file for compiler generated dependencies management for lesson_03_split_reorder.
