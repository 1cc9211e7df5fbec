file(REMOVE_RECURSE
  "CMakeFiles/coconet_bench_smoke_pipeline_stage_coconet_12.dir/coconet_bench_smoke_pipeline_stage_coconet_12.coconet/coconet_bench_smoke_pipeline_stage_coconet_12.cpp.o"
  "CMakeFiles/coconet_bench_smoke_pipeline_stage_coconet_12.dir/coconet_bench_smoke_pipeline_stage_coconet_12.coconet/coconet_bench_smoke_pipeline_stage_coconet_12.cpp.o.d"
  "libcoconet_bench_smoke_pipeline_stage_coconet_12.a"
  "libcoconet_bench_smoke_pipeline_stage_coconet_12.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/coconet_bench_smoke_pipeline_stage_coconet_12.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
