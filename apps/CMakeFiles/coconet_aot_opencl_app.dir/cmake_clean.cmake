file(REMOVE_RECURSE
  "CMakeFiles/coconet_aot_opencl_app.dir/aot_main.cpp.o"
  "CMakeFiles/coconet_aot_opencl_app.dir/aot_main.cpp.o.d"
  "coconet_aot_opencl_app"
  "coconet_aot_opencl_app.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/coconet_aot_opencl_app.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
