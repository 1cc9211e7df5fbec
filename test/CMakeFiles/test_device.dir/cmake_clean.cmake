file(REMOVE_RECURSE
  "CMakeFiles/test_device.dir/test_device.cpp.o"
  "CMakeFiles/test_device.dir/test_device.cpp.o.d"
  "test_device"
  "test_device.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/test_device.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
