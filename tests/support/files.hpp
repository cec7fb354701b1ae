// Test support: whole-file reads for tests that feed checkpoint, config and tokenizer files to the core.
// A missing file fails the test that asked for it (REQUIRE), naming nothing else.
#pragma once

#include <catch2/catch.hpp>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace blockscope::test_files {

inline std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  INFO("reading " << path);
  REQUIRE(in);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

inline std::string read_text(const std::string& path) {
  const std::vector<uint8_t> b = read_file(path);
  return std::string(b.begin(), b.end());
}

}  // namespace blockscope::test_files
