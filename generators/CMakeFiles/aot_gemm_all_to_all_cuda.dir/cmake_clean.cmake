file(REMOVE_RECURSE
  "CMakeFiles/aot_gemm_all_to_all_cuda.dir/aot_gemm_all_to_all_cuda.coconet/aot_gemm_all_to_all_cuda.cpp.o"
  "CMakeFiles/aot_gemm_all_to_all_cuda.dir/aot_gemm_all_to_all_cuda.coconet/aot_gemm_all_to_all_cuda.cpp.o.d"
  "libaot_gemm_all_to_all_cuda.a"
  "libaot_gemm_all_to_all_cuda.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/aot_gemm_all_to_all_cuda.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
