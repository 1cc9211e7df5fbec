# Empty custom commands generated dependencies file for coconet_bench_smoke_pipeline_stage_unscheduled_12.generate.
# This may be replaced when dependencies are built.
