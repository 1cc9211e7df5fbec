# Empty compiler generated dependencies file for coconet_bench_pipeline_stage_unscheduled_20.
# This may be replaced when dependencies are built.
