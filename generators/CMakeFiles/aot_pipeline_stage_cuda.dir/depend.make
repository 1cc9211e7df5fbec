# Empty dependencies file for aot_pipeline_stage_cuda.
# This may be replaced when dependencies are built.
