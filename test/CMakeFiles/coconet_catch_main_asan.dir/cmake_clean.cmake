file(REMOVE_RECURSE
  "CMakeFiles/coconet_catch_main_asan.dir/catch_main.cpp.o"
  "CMakeFiles/coconet_catch_main_asan.dir/catch_main.cpp.o.d"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/coconet_catch_main_asan.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
