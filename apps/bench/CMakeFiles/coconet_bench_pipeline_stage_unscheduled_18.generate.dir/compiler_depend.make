# Empty custom commands generated dependencies file for coconet_bench_pipeline_stage_unscheduled_18.generate.
# This may be replaced when dependencies are built.
