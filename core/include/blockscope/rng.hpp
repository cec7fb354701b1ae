// A small seeded random number generator (PCG32) that gives the same stream natively and in wasm,
// used for the model's deterministic initialisation and for sampling. std:: distributions are avoided
// on purpose: libstdc++ (native) and libc++ (Emscripten) implement them differently.
#pragma once

#include <cstdint>

namespace blockscope {

class Rng {
 public:
  explicit Rng(uint64_t seed, uint64_t stream = 54);
  uint32_t next_u32();
  // Uniform in [0, 1) with 24 random bits: exact in float32, identical on every platform.
  float uniform();
  // Uniform in [lo, hi).
  float uniform(float lo, float hi);
  // Standard normal via Box-Muller, computed in double (libm may differ by one double ulp between
  // platforms, which almost never changes the float32 result).
  float normal();

 private:
  uint64_t state_ = 0;
  uint64_t inc_ = 0;
  bool has_spare_ = false;
  double spare_ = 0.0;
};

}  // namespace blockscope
