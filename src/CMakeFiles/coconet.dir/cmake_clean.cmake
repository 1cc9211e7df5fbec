file(REMOVE_RECURSE
  "libcoconet.a"
  "libcoconet.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/coconet.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
