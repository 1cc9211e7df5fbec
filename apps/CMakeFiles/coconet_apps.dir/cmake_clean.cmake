file(REMOVE_RECURSE
  "libcoconet_apps.a"
  "libcoconet_apps.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/coconet_apps.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
