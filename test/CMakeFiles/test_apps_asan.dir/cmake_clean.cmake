file(REMOVE_RECURSE
  "CMakeFiles/test_apps_asan.dir/test_apps.cpp.o"
  "CMakeFiles/test_apps_asan.dir/test_apps.cpp.o.d"
  "test_apps_asan"
  "test_apps_asan.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/test_apps_asan.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
