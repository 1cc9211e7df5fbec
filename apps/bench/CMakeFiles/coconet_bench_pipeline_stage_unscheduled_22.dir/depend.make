# Empty dependencies file for coconet_bench_pipeline_stage_unscheduled_22.
# This may be replaced when dependencies are built.
