# CMAKE generated file: DO NOT EDIT!
# Timestamp file for custom commands dependencies management for coconet_bench_pipeline_stage_unscheduled_20.generate.
