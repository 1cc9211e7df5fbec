file(REMOVE_RECURSE
  "CMakeFiles/aot_lamb.dir/aot_lamb.coconet/aot_lamb.cpp.o"
  "CMakeFiles/aot_lamb.dir/aot_lamb.coconet/aot_lamb.cpp.o.d"
  "libaot_lamb.a"
  "libaot_lamb.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/aot_lamb.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
