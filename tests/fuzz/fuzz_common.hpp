// Shared helpers for the libFuzzer targets (see README.md). Each target treats blockscope::Error as the
// expected answer to bad input and lets anything else (another exception, a sanitizer report, an abort)
// crash the run.
#pragma once

#include <cstddef>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace fuzz {

// The whole file; aborts (a broken fuzz setup, not a finding) if it cannot be read.
inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "fuzz setup: cannot read %s\n", path.c_str());
    std::abort();
  }
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline std::vector<uint8_t> read_bytes(const std::string& path) {
  const std::string s = read_text(path);
  return {s.begin(), s.end()};
}

// A property the code under test promises was broken: report it and crash, so libFuzzer saves the input.
[[noreturn]] inline void fail(const char* what) {
  std::fprintf(stderr, "fuzz property violated: %s\n", what);
  std::abort();
}

#ifdef BLOCKSCOPE_GOLDEN_DIR
// The golden checkpoints (tests/golden/models/): book layout F32, Hugging Face F32, F16 and BF16.
struct Golden {
  std::string config;
  std::vector<uint8_t> weights;
};
inline const std::array<Golden, 4>& goldens() {
  static const std::array<Golden, 4> g = [] {
    std::array<Golden, 4> out;
    const char* names[] = {"book_tiny", "hf_tiny", "hf_tiny_f16", "hf_tiny_bf16"};
    for (size_t i = 0; i < out.size(); ++i) {
      const std::string dir = std::string(BLOCKSCOPE_GOLDEN_DIR) + "/models/" + names[i];
      out[i] = {read_text(dir + "/config.json"), read_bytes(dir + "/model.safetensors")};
    }
    return out;
  }();
  return g;
}
#endif

// Applies the fuzzer's patches to `bytes`: each 4-byte record of `patches` is (u16 offset, u8 op, u8 value),
// op % 4 = 0 xor, 1 set, 2 insert, 3 truncate at offset (modulo the current size); a partial record is ignored.
inline void apply_patches(std::vector<uint8_t>& bytes, const uint8_t* patches, size_t n) {
  for (size_t i = 0; i + 4 <= n && !bytes.empty(); i += 4) {
    const size_t offset = (size_t{patches[i]} | size_t{patches[i + 1]} << 8) % bytes.size();
    const uint8_t value = patches[i + 3];
    switch (patches[i + 2] % 4) {
      case 0: bytes[offset] ^= value; break;
      case 1: bytes[offset] = value; break;
      case 2: bytes.insert(bytes.begin() + static_cast<std::ptrdiff_t>(offset), value); break;
      case 3: bytes.resize(offset); break;
    }
  }
}

}  // namespace fuzz
