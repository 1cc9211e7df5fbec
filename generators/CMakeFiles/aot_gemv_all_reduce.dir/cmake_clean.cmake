file(REMOVE_RECURSE
  "CMakeFiles/aot_gemv_all_reduce.dir/aot_gemv_all_reduce.coconet/aot_gemv_all_reduce.cpp.o"
  "CMakeFiles/aot_gemv_all_reduce.dir/aot_gemv_all_reduce.coconet/aot_gemv_all_reduce.cpp.o.d"
  "libaot_gemv_all_reduce.a"
  "libaot_gemv_all_reduce.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/aot_gemv_all_reduce.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
