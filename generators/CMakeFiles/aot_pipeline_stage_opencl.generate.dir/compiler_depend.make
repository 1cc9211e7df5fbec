# Empty custom commands generated dependencies file for aot_pipeline_stage_opencl.generate.
# This may be replaced when dependencies are built.
