file(REMOVE_RECURSE
  "libcoconet_asan.a"
  "libcoconet_asan.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/coconet_asan.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
