// Catch2 entry point for the native tests; prints the largest deviation from PyTorch per component at exit.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "support/golden.hpp"

int main(int argc, char* argv[]) {
  const int failures = Catch::Session().run(argc, argv);
  blockscope::golden::print_deviation_report();
  return failures;
}
