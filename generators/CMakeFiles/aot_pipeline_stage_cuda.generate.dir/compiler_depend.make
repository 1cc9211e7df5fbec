# Empty custom commands generated dependencies file for aot_pipeline_stage_cuda.generate.
# This may be replaced when dependencies are built.
