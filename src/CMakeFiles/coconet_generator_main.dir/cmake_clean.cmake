file(REMOVE_RECURSE
  "CMakeFiles/coconet_generator_main.dir/GeneratorMain.cpp.o"
  "CMakeFiles/coconet_generator_main.dir/GeneratorMain.cpp.o.d"
  "libcoconet_generator_main.a"
  "libcoconet_generator_main.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/coconet_generator_main.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
