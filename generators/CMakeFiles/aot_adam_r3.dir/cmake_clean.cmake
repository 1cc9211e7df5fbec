file(REMOVE_RECURSE
  "CMakeFiles/aot_adam_r3.dir/aot_adam_r3.coconet/aot_adam_r3.cpp.o"
  "CMakeFiles/aot_adam_r3.dir/aot_adam_r3.coconet/aot_adam_r3.cpp.o.d"
  "libaot_adam_r3.a"
  "libaot_adam_r3.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/aot_adam_r3.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
