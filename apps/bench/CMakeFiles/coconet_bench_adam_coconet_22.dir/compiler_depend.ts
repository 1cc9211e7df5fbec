# CMAKE generated file: DO NOT EDIT!
# Timestamp file for compiler generated dependencies management for coconet_bench_adam_coconet_22.
