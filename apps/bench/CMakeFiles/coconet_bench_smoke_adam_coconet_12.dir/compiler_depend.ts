# CMAKE generated file: DO NOT EDIT!
# Timestamp file for compiler generated dependencies management for coconet_bench_smoke_adam_coconet_12.
