# Empty dependencies file for aot_pipeline_stage.
# This may be replaced when dependencies are built.
