file(REMOVE_RECURSE
  "libcoconet_bench_smoke_pipeline_stage_coconet_12.a"
)
