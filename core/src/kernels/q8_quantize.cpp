// Q8_0-style quantization of float32 rows (weights at load, activations before the int8 GEMV) and the
// dequantization of weight rows. Scale = max|v| / 127 and code = nearbyint(v / scale), the same float32
// operations as tests/reference/make_q8_goldens.py in PyTorch (torch.round also rounds ties to even).
#include <algorithm>
#include <cmath>

#include "kernels/q8.hpp"

namespace blockscope::kernels {

namespace {
template <typename Code>
void quantize(Code* codes, float* scales, const float* v, int64_t n) {
  const int64_t G = (n + 31) / 32;
  for (int64_t g = 0; g < G; ++g) {
    const int64_t k0 = g * 32, k1 = std::min(n, k0 + 32);
    float amax = 0.0f;
    for (int64_t k = k0; k < k1; ++k) amax = std::max(amax, std::fabs(v[k]));
    const float scale = amax / 127.0f;
    scales[g] = scale;
    for (int64_t k = k0; k < k1; ++k) {
      const float q = scale > 0.0f ? std::nearbyint(v[k] / scale) : 0.0f;
      codes[k] = static_cast<Code>(std::clamp(q, -127.0f, 127.0f));
    }
    for (int64_t k = k1; k < k0 + 32; ++k) codes[k] = 0;
  }
}
}  // namespace

void q8_quantize_row(int8_t* codes, float* scales, const float* v, int64_t n) { quantize(codes, scales, v, n); }
void q8_quantize_row_i16(int16_t* codes, float* scales, const float* v, int64_t n) {
  quantize(codes, scales, v, n);
}

void q8_dequantize_rows(float* panel, const int8_t* wq, const float* ws, int64_t r0, int64_t nr, int64_t G,
                        int64_t C) {
  for (int64_t r = 0; r < nr; ++r) {
    const int8_t* q = wq + (r0 + r) * G * 32;
    const float* s = ws + (r0 + r) * G;
    float* o = panel + r * C;
    for (int64_t k = 0; k < C; ++k) o[k] = static_cast<float>(q[k]) * s[k / 32];
  }
}

}  // namespace blockscope::kernels
