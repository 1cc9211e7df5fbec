# CMAKE generated file: DO NOT EDIT!
# Timestamp file for custom commands dependencies management for coconet_bench_pipeline_stage_coconet_16.generate.
