# Empty custom commands generated dependencies file for coconet_bench_pipeline_stage_unscheduled_20.generate.
# This may be replaced when dependencies are built.
