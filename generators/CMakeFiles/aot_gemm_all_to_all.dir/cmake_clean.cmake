file(REMOVE_RECURSE
  "CMakeFiles/aot_gemm_all_to_all.dir/aot_gemm_all_to_all.coconet/aot_gemm_all_to_all.cpp.o"
  "CMakeFiles/aot_gemm_all_to_all.dir/aot_gemm_all_to_all.coconet/aot_gemm_all_to_all.cpp.o.d"
  "libaot_gemm_all_to_all.a"
  "libaot_gemm_all_to_all.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/aot_gemm_all_to_all.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
