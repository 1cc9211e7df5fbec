# Empty compiler generated dependencies file for coconet_runtime_nccl.
# This may be replaced when dependencies are built.
