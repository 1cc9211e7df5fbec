# Empty compiler generated dependencies file for coconet_aot_opencl_app.
# This may be replaced when dependencies are built.
