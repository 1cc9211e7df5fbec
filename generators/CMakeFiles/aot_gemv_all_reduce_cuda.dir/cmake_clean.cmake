file(REMOVE_RECURSE
  "CMakeFiles/aot_gemv_all_reduce_cuda.dir/aot_gemv_all_reduce_cuda.coconet/aot_gemv_all_reduce_cuda.cpp.o"
  "CMakeFiles/aot_gemv_all_reduce_cuda.dir/aot_gemv_all_reduce_cuda.coconet/aot_gemv_all_reduce_cuda.cpp.o.d"
  "libaot_gemv_all_reduce_cuda.a"
  "libaot_gemv_all_reduce_cuda.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/aot_gemv_all_reduce_cuda.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
