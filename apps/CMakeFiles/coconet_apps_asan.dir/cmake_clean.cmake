file(REMOVE_RECURSE
  "libcoconet_apps_asan.a"
  "libcoconet_apps_asan.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/coconet_apps_asan.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
