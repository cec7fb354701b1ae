// Row maximum for softmax, four lanes at a time in SIMD128 builds: std::max_element's scalar loop took half of
// softmax's time over attention rows. The maximum does not depend on the order of comparisons.
#include "kernels/dispatch.hpp"

#ifdef __wasm_simd128__
#include <algorithm>

#include "kernels/simd128.hpp"

namespace blockscope::kernels {

float f32_row_max__simd128(const float* r, int64_t n) {
  if (n < 8) return f32_row_max__generic(r, n);
  v128_t m0 = wasm_v128_load(r), m1 = wasm_v128_load(r + 4);
  int64_t j = 8;
  for (; j + 8 <= n; j += 8) {
    m0 = wasm_f32x4_max(m0, wasm_v128_load(r + j));
    m1 = wasm_f32x4_max(m1, wasm_v128_load(r + j + 4));
  }
  m0 = wasm_f32x4_max(m0, m1);
  float mx = std::max(std::max(wasm_f32x4_extract_lane(m0, 0), wasm_f32x4_extract_lane(m0, 1)),
                      std::max(wasm_f32x4_extract_lane(m0, 2), wasm_f32x4_extract_lane(m0, 3)));
  for (; j < n; ++j) mx = std::max(mx, r[j]);
  return mx;
}

}  // namespace blockscope::kernels
#endif
