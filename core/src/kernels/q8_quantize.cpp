// Q8_0-style quantization of float32 rows (weights at load, activations before the int8 GEMV) and the
// dequantization of weight rows. Scale = max|v| / 127 and code = nearbyint(v / scale), the same float32
// operations as tests/reference/make_q8_goldens.py in PyTorch (torch.round also rounds ties to even). A group
// holding an inf or NaN quantizes to a NaN scale, so the non-finite value is not hidden (see quantize).
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
    bool finite = true;
    for (int64_t k = k0; k < k1; ++k) {
      amax = std::max(amax, std::fabs(v[k]));
      finite = finite && std::isfinite(v[k]);
    }
    // A group with an inf or NaN gets codes 0 and a NaN scale: every dot product it enters is NaN, so a
    // non-finite activation reaches the int8 path's output as it reaches float32's (and is reported the same way).
    const float scale = finite ? amax / 127.0f : NAN;
    scales[g] = scale;
    for (int64_t k = k0; k < k1; ++k) {
      const float q = finite && scale > 0.0f ? std::nearbyint(v[k] / scale) : 0.0f;
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
  // Sixteen k at a time (inside one 32-code group): the 8 rows' codes transposed as bytes by three rounds of
  // interleaves, then per k one widening of 8 codes, two conversions and two products by the rows' scales.
  for (; k + 16 <= C; k += 16) {
    const int64_t g = k / 32;
    const vf s_lo = wasm_f32x4_make(ws[g], ws[G + g], ws[2 * G + g], ws[3 * G + g]);
    const vf s_hi = wasm_f32x4_make(ws[4 * G + g], ws[5 * G + g], ws[6 * G + g], ws[7 * G + g]);
    v128_t r[8];
    for (int j = 0; j < 8; ++j) r[j] = wasm_v128_load(wq + j * row + k);
    v128_t a[8], b[8];
    for (int j = 0; j < 8; j += 2) {  // a: row pairs, bytes interleaved (lo: k 0-7, hi: k 8-15)
      a[j] = wasm_i8x16_shuffle(r[j], r[j + 1], 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
      a[j + 1] = wasm_i8x16_shuffle(r[j], r[j + 1], 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
    }
    for (int h = 0; h < 2; ++h)  // b: rows 0-3 / 4-7 of 4 k each (k 0-3, 4-7, 8-11, 12-15)
      for (int q = 0; q < 2; ++q) {
        const v128_t x = a[4 * h + q], y = a[4 * h + 2 + q];
        b[4 * h + 2 * q] = wasm_i8x16_shuffle(x, y, 0, 1, 16, 17, 2, 3, 18, 19, 4, 5, 20, 21, 6, 7, 22, 23);
        b[4 * h + 2 * q + 1] = wasm_i8x16_shuffle(x, y, 8, 9, 24, 25, 10, 11, 26, 27, 12, 13, 28, 29, 14, 15, 30, 31);
      }
    for (int q = 0; q < 4; ++q) {  // rows 0-7 of k = 4q .. 4q + 3, two k per vector
      const v128_t lo = wasm_i8x16_shuffle(b[q], b[4 + q], 0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23);
      const v128_t hi = wasm_i8x16_shuffle(b[q], b[4 + q], 8, 9, 10, 11, 24, 25, 26, 27, 12, 13, 14, 15, 28, 29, 30, 31);
      for (const v128_t pair : {lo, hi})
        for (const v128_t c : {wasm_i16x8_extend_low_i8x16(pair), wasm_i16x8_extend_high_i8x16(pair)}) {
          store(p, wasm_f32x4_mul(wasm_f32x4_convert_i32x4(wasm_i32x4_extend_low_i16x8(c)), s_lo));
          store(p + 4, wasm_f32x4_mul(wasm_f32x4_convert_i32x4(wasm_i32x4_extend_high_i16x8(c)), s_hi));
          p += kGemmNR;
        }
    }
  }
  // Then four k at a time: 4 values of each of the 8 rows, two 4x4 transposes.
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
