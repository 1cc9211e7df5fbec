# Empty custom commands generated dependencies file for coconet_bench_smoke_adam_coconet_12.generate.
# This may be replaced when dependencies are built.
