# Empty dependencies file for coconet_aot_cuda_app.
# This may be replaced when dependencies are built.
