file(REMOVE_RECURSE
  "libcoconet_bench_smoke_pipeline_stage_unscheduled_12.a"
)
