// The shared Catch2 main (compiled once, linked into every Catch2 test).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
