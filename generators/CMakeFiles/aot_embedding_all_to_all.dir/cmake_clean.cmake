file(REMOVE_RECURSE
  "CMakeFiles/aot_embedding_all_to_all.dir/aot_embedding_all_to_all.coconet/aot_embedding_all_to_all.cpp.o"
  "CMakeFiles/aot_embedding_all_to_all.dir/aot_embedding_all_to_all.coconet/aot_embedding_all_to_all.cpp.o.d"
  "libaot_embedding_all_to_all.a"
  "libaot_embedding_all_to_all.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/aot_embedding_all_to_all.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
