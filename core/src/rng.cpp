// PCG32 (O'Neill, pcg-random.org, "pcg32_random_r") with float helpers that are identical on every platform.
#include "blockscope/rng.hpp"

#include <cmath>

namespace blockscope {

Rng::Rng(uint64_t seed, uint64_t stream) : inc_((stream << 1u) | 1u) {
  next_u32();
  state_ += seed;
  next_u32();
}

uint32_t Rng::next_u32() {
  const uint64_t old = state_;
  state_ = old * 6364136223846793005ULL + inc_;
  const auto xorshifted = static_cast<uint32_t>(((old >> 18u) ^ old) >> 27u);
  const auto rot = static_cast<uint32_t>(old >> 59u);
  return (xorshifted >> rot) | (xorshifted << ((32u - rot) & 31u));
}

float Rng::uniform() { return static_cast<float>(next_u32() >> 8) * (1.0f / 16777216.0f); }

float Rng::uniform(float lo, float hi) { return lo + (hi - lo) * uniform(); }

float Rng::normal() {
  if (has_spare_) {
    has_spare_ = false;
    return static_cast<float>(spare_);
  }
  // u1 in (0, 1] so log(u1) is finite.
  const double u1 = (static_cast<double>(next_u32() >> 8) + 1.0) / 16777216.0;
  const double u2 = static_cast<double>(next_u32() >> 8) / 16777216.0;
  const double r = std::sqrt(-2.0 * std::log(u1));
  const double theta = 6.283185307179586 * u2;
  spare_ = r * std::sin(theta);
  has_spare_ = true;
  return static_cast<float>(r * std::cos(theta));
}

}  // namespace blockscope
