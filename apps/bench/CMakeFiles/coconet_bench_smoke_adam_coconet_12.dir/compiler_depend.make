# Empty compiler generated dependencies file for coconet_bench_smoke_adam_coconet_12.
# This may be replaced when dependencies are built.
