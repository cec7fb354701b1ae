// Q8_0-style quantization of float32 rows (weights at load, activations before the int8 GEMV) and the
// dequantization of weight rows. Scale = max|v| / 127 and code = nearbyint(v / scale), the same float32
// operations as tests/reference/make_q8_goldens.py in PyTorch (torch.round also rounds ties to even).
#include <algorithm>
#include <cmath>

#include "kernels/kernels.hpp"
#include "kernels/q8.hpp"
#include "kernels/simd128.hpp"

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

void q8_gemm_pack_8__generic(float* packed, const int8_t* wq, const float* ws, const float* bias, int64_t nc,
                             int64_t G, int64_t C) {
  for (int64_t j = 0; j < kGemmNR; ++j) packed[j] = (bias && j < nc) ? bias[j] : 0.0f;
  for (int64_t k = 0; k < C; ++k) {
    float* p = packed + kGemmNR * (1 + k);
    for (int64_t j = 0; j < nc; ++j) p[j] = static_cast<float>(wq[j * G * 32 + k]) * ws[j * G + k / 32];
    for (int64_t j = nc; j < kGemmNR; ++j) p[j] = 0.0f;
  }
}

#ifdef __wasm_simd128__
namespace {
// float(code) * scale for the 4 codes at q: the same conversion and one rounded product per lane as the scalar.
inline simd128::vf dequantize4(const int8_t* q, const float* scale) {
  const v128_t c = wasm_i32x4_extend_low_i16x8(wasm_i16x8_extend_low_i8x16(wasm_v128_load32_zero(q)));
  return wasm_f32x4_mul(wasm_f32x4_convert_i32x4(c), simd128::load_splat(scale));
}
}  // namespace

void q8_gemm_pack_8__simd128(float* packed, const int8_t* wq, const float* ws, const float* bias, int64_t nc,
                             int64_t G, int64_t C) {
  using namespace simd128;
  if (nc < kGemmNR) {  // only the last panel, when OC % 8 != 0
    q8_gemm_pack_8__generic(packed, wq, ws, bias, nc, G, C);
    return;
  }
  store(packed, bias ? load(bias) : zero());
  store(packed + 4, bias ? load(bias + 4) : zero());
  const int64_t row = G * 32;
  float* p = packed + kGemmNR;
  int64_t k = 0;
  // Four k at a time (never straddling a 32-code group): 4 values of each of the 8 rows, two 4x4 transposes.
  for (; k + kW <= C; k += kW, p += kW * kGemmNR) {
    const int64_t g = k / 32;
    vf r0 = dequantize4(wq + k, ws + g), r1 = dequantize4(wq + row + k, ws + G + g);
    vf r2 = dequantize4(wq + 2 * row + k, ws + 2 * G + g), r3 = dequantize4(wq + 3 * row + k, ws + 3 * G + g);
    vf r4 = dequantize4(wq + 4 * row + k, ws + 4 * G + g), r5 = dequantize4(wq + 5 * row + k, ws + 5 * G + g);
    vf r6 = dequantize4(wq + 6 * row + k, ws + 6 * G + g), r7 = dequantize4(wq + 7 * row + k, ws + 7 * G + g);
    transpose4(r0, r1, r2, r3);
    transpose4(r4, r5, r6, r7);
    store(p, r0), store(p + 4, r4), store(p + 8, r1), store(p + 12, r5);
    store(p + 16, r2), store(p + 20, r6), store(p + 24, r3), store(p + 28, r7);
  }
  for (; k < C; ++k, p += kGemmNR)
    for (int64_t j = 0; j < kGemmNR; ++j) p[j] = static_cast<float>(wq[j * row + k]) * ws[j * G + k / 32];
}
#endif

}  // namespace blockscope::kernels
