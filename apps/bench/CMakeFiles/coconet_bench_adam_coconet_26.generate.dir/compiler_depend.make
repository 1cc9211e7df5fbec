# Empty custom commands generated dependencies file for coconet_bench_adam_coconet_26.generate.
# This may be replaced when dependencies are built.
