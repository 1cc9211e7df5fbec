file(REMOVE_RECURSE
  "CMakeFiles/coconet_catch_main_tsan.dir/catch_main.cpp.o"
  "CMakeFiles/coconet_catch_main_tsan.dir/catch_main.cpp.o.d"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/coconet_catch_main_tsan.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
