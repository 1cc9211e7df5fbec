# Empty dependencies file for coconet_bench_pipeline_stage_coconet_16.
# This may be replaced when dependencies are built.
