// Helpers shared by the kernel and op tests (test_kernels_*.cpp, test_q8_kernels.cpp, test_ops.cpp), natively and
// in the wasm kernel test program: seeded random inputs, NaN guard cells, and the worst element under XNNPACK's
// mixed tolerance.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "blockscope/rng.hpp"

namespace blockscope::kernel_check {

// Outputs start as NaN so unwritten elements fail; kGuard NaN cells after an output must still be NaN afterwards
// (nothing written out of bounds).
inline constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
inline constexpr int64_t kGuard = 5;

// Every cell of buf from `from` on is still NaN.
inline bool guard_intact(const std::vector<float>& buf, size_t from) {
  for (size_t i = from; i < buf.size(); ++i)
    if (!std::isnan(buf[i])) return false;
  return true;
}

// n standard-normal floats from PCG32 `seed` (the same on every platform).
inline std::vector<float> random_vec(int64_t n, uint64_t seed) {
  Rng r(seed);
  std::vector<float> v(static_cast<size_t>(n));
  for (auto& x : v) x = r.normal();
  return v;
}

// Worst element of `got` against `want` under |a - e| <= atol + rtol |e|; `excess` > 0 means a failure
// (NaN too).
struct Deviation {
  int64_t index = -1;
  double got = 0, want = 0, abs = 0, excess = -1;
};
template <class T>
Deviation compare(const std::vector<float>& got, const std::vector<T>& want, double atol = 1e-5, double rtol = 1e-5) {
  Deviation d;
  for (size_t i = 0; i < want.size(); ++i) {
    const double a = got[i], e = static_cast<double>(want[i]), err = std::fabs(a - e);
    const double excess = std::isnan(err) ? 1.0 : err - (atol + rtol * std::fabs(e));
    if (excess > d.excess || d.index < 0) d = {static_cast<int64_t>(i), a, e, err, excess};
  }
  return d;
}

}  // namespace blockscope::kernel_check
