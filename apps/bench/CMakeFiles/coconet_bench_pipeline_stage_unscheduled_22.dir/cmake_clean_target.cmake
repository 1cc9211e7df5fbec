file(REMOVE_RECURSE
  "libcoconet_bench_pipeline_stage_unscheduled_22.a"
)
