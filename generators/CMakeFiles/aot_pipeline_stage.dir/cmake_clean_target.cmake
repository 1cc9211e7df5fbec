file(REMOVE_RECURSE
  "libaot_pipeline_stage.a"
)
