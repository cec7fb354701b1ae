// Helpers shared by the kernel tests (test_kernels.cpp, test_kernels_backward.cpp), natively and in the wasm
// kernel test program: seeded random inputs and the worst element under XNNPACK's mixed tolerance.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "blockscope/rng.hpp"

namespace blockscope::kernel_check {

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
