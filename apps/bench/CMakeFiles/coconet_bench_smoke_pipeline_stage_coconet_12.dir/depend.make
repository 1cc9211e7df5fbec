# Empty dependencies file for coconet_bench_smoke_pipeline_stage_coconet_12.
# This may be replaced when dependencies are built.
