file(REMOVE_RECURSE
  "CMakeFiles/test_pass_gpu_schedule.dir/test_pass_gpu_schedule.cpp.o"
  "CMakeFiles/test_pass_gpu_schedule.dir/test_pass_gpu_schedule.cpp.o.d"
  "test_pass_gpu_schedule"
  "test_pass_gpu_schedule.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/test_pass_gpu_schedule.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
