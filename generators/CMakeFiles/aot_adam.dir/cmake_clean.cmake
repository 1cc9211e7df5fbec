file(REMOVE_RECURSE
  "CMakeFiles/aot_adam.dir/aot_adam.coconet/aot_adam.cpp.o"
  "CMakeFiles/aot_adam.dir/aot_adam.coconet/aot_adam.cpp.o.d"
  "libaot_adam.a"
  "libaot_adam.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/aot_adam.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
