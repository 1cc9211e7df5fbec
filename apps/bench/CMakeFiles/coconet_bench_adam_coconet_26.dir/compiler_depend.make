# Empty compiler generated dependencies file for coconet_bench_adam_coconet_26.
# This may be replaced when dependencies are built.
