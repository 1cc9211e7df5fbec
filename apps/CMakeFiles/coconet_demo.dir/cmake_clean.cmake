file(REMOVE_RECURSE
  "CMakeFiles/coconet_demo.dir/demo.cpp.o"
  "CMakeFiles/coconet_demo.dir/demo.cpp.o.d"
  "coconet_demo"
  "coconet_demo.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/coconet_demo.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
