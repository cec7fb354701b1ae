// Int8 x int8 GEMV for decoding: out = W @ x + bias with W as Q8 codes and scales and x quantized per group
// the same way (llama.cpp's Q8_0 x Q8_0). Each group's 32 products are summed exactly in int32, then scaled
// by w_scale * x_scale in float32. Weight bytes streamed per token: 1.125 per value instead of 4.
#include "kernels/q8.hpp"

#include "kernels/simd128.hpp"

namespace blockscope::kernels {

void q8_gemv__generic(float* out, const int16_t* xq, const float* xs, const int8_t* wq, const float* ws,
                      const float* bias, int64_t G, int64_t OC) {
  for (int64_t o = 0; o < OC; ++o) {
    const int8_t* w = wq + o * G * 32;
    const float* s = ws + o * G;
    float acc = 0.0f;
    for (int64_t g = 0; g < G; ++g) {
      int32_t isum = 0;
      for (int64_t k = 0; k < 32; ++k) isum += static_cast<int32_t>(w[g * 32 + k]) * xq[g * 32 + k];
      const float scale = s[g] * xs[g];
      acc = acc + static_cast<float>(isum) * scale;
    }
    out[o] = bias ? acc + bias[o] : acc;
  }
}

#ifdef __wasm_simd128__
namespace {
using namespace simd128;

// The four int32 partial sums of one weight row's group against x's: 32 int8 codes widened to int16 as they
// are loaded (v128.load8x8_s, one instruction each on x86, unlike extend_high of a full load) and multiplied
// pairwise with i32x4.dot_i16x8_s.
inline v128_t group_dot(const int8_t* w, v128_t x0, v128_t x1, v128_t x2, v128_t x3) {
  v128_t s = wasm_i32x4_dot_i16x8(wasm_i16x8_load8x8(w), x0);
  s = wasm_i32x4_add(s, wasm_i32x4_dot_i16x8(wasm_i16x8_load8x8(w + 8), x1));
  s = wasm_i32x4_add(s, wasm_i32x4_dot_i16x8(wasm_i16x8_load8x8(w + 16), x2));
  return wasm_i32x4_add(s, wasm_i32x4_dot_i16x8(wasm_i16x8_load8x8(w + 24), x3));
}

// [sum(a), sum(b), sum(c), sum(d)] of four int32x4 vectors (integer adds: exact, so any order is the same).
inline v128_t ihsum4(v128_t a, v128_t b, v128_t c, v128_t d) {
  const v128_t ab = wasm_i32x4_add(wasm_i32x4_shuffle(a, b, 0, 4, 1, 5), wasm_i32x4_shuffle(a, b, 2, 6, 3, 7));
  const v128_t cd = wasm_i32x4_add(wasm_i32x4_shuffle(c, d, 0, 4, 1, 5), wasm_i32x4_shuffle(c, d, 2, 6, 3, 7));
  return wasm_i32x4_add(wasm_i32x4_shuffle(ab, cd, 0, 1, 4, 5), wasm_i32x4_shuffle(ab, cd, 2, 3, 6, 7));
}

// Four output rows: w0..w3 their codes, s0..s3 their scales. Kept out of line (like f32_gemv's row dot): with
// link-time optimization inlining it, int8 decoding ran ~7 % slower in V8 (38.5 vs 41.2 tok/s, GPT-2-124M shape).
__attribute__((noinline)) vf dot4(const int16_t* xq, const float* xs, const int8_t* w0, const int8_t* w1, const int8_t* w2,
               const int8_t* w3, const float* s0, const float* s1, const float* s2, const float* s3, int64_t G) {
  vf acc = zero();
  for (int64_t g = 0; g < G; ++g) {
    const int16_t* x = xq + g * 32;
    const v128_t x0 = wasm_v128_load(x), x1 = wasm_v128_load(x + 8);
    const v128_t x2 = wasm_v128_load(x + 16), x3 = wasm_v128_load(x + 24);
    const int64_t k = g * 32;
    const v128_t isum = ihsum4(group_dot(w0 + k, x0, x1, x2, x3), group_dot(w1 + k, x0, x1, x2, x3),
                               group_dot(w2 + k, x0, x1, x2, x3), group_dot(w3 + k, x0, x1, x2, x3));
    const vf scale = wasm_f32x4_mul(wasm_f32x4_make(s0[g], s1[g], s2[g], s3[g]), wasm_f32x4_splat(xs[g]));
    acc = wasm_f32x4_add(acc, wasm_f32x4_mul(wasm_f32x4_convert_i32x4(isum), scale));
  }
  return acc;
}
}  // namespace

void q8_gemv__simd128(float* out, const int16_t* xq, const float* xs, const int8_t* wq, const float* ws,
                      const float* bias, int64_t G, int64_t OC) {
  const int64_t stride = G * 32;
  int64_t o = 0;
  for (; o + 4 <= OC; o += 4) {
    const int8_t* w = wq + o * stride;
    const float* s = ws + o * G;
    vf y = dot4(xq, xs, w, w + stride, w + 2 * stride, w + 3 * stride, s, s + G, s + 2 * G, s + 3 * G, G);
    if (bias) y = add(y, load(bias + o));
    store(out + o, y);
  }
  if (o == OC) return;
  // OC % 4 tail rows: rows past OC alias the last one, and only the real ones are stored.
  const int64_t n = OC - o;
  const int8_t* w0 = wq + o * stride;
  const int8_t* w1 = n > 1 ? w0 + stride : w0;
  const int8_t* w2 = n > 2 ? w1 + stride : w1;
  const float* s0 = ws + o * G;
  const float* s1 = n > 1 ? s0 + G : s0;
  const float* s2 = n > 2 ? s1 + G : s1;
  float y[4];
  store(y, dot4(xq, xs, w0, w1, w2, w2, s0, s1, s2, s2, G));
  for (int64_t i = 0; i < n; ++i) out[o + i] = bias ? y[i] + bias[o + i] : y[i];
}
#endif

}  // namespace blockscope::kernels
