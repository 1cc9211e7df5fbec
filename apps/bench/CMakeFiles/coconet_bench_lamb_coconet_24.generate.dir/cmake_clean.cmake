file(REMOVE_RECURSE
  "CMakeFiles/coconet_bench_lamb_coconet_24.generate"
  "coconet_bench_lamb_coconet_24.coconet/coconet_bench_lamb_coconet_24.cpp"
  "coconet_bench_lamb_coconet_24.coconet/coconet_bench_lamb_coconet_24.h"
  "coconet_bench_lamb_coconet_24.coconet/coconet_bench_lamb_coconet_24_halide.a"
)

# Per-language clean rules from dependency scanning.
foreach(lang )
  include(CMakeFiles/coconet_bench_lamb_coconet_24.generate.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
