// Catch2 entry point of the wasm kernel test (Node): exits non-zero when a test fails.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
