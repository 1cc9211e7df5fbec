file(REMOVE_RECURSE
  "coconet_generators"
  "coconet_generators.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/coconet_generators.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
