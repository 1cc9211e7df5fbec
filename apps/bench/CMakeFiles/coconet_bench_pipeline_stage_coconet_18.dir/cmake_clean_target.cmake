file(REMOVE_RECURSE
  "libcoconet_bench_pipeline_stage_coconet_18.a"
)
