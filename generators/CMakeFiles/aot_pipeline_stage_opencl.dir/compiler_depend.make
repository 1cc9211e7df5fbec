# Empty compiler generated dependencies file for aot_pipeline_stage_opencl.
# This may be replaced when dependencies are built.
