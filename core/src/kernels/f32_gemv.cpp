// Matrix-vector kernels for single-row inputs (token-by-token decoding): out = weight @ inp + bias, weight
// read once, row-major and unpacked. The SIMD128 kernel takes four weight rows at a time.
#include "kernels/kernels.hpp"

#include "kernels/simd128.hpp"

namespace blockscope::kernels {

void f32_gemv__generic(float* out, const float* inp, const float* weight, const float* bias, int64_t C,
                       int64_t OC) {
  for (int64_t o = 0; o < OC; ++o) {
    const float* w = weight + o * C;
    float acc = 0.0f;
    for (int64_t k = 0; k < C; ++k) acc += w[k] * inp[k];
    out[o] = bias ? acc + bias[o] : acc;
  }
}

#ifdef __wasm_simd128__
namespace {
using namespace simd128;

// [dot(w0, x), dot(w1, x), dot(w2, x), dot(w3, x)] over C elements: one v128 accumulator per row to
// C & ~3, a horizontal sum, then the C % 4 tail in scalar.
vf dot4(const float* x, const float* w0, const float* w1, const float* w2, const float* w3, int64_t C) {
  vf a0 = zero(), a1 = zero(), a2 = zero(), a3 = zero();
  const int64_t Cv = C & ~(kW - 1);
  int64_t k = 0;
  for (; k < Cv; k += kW) {
    const vf xv = load(x + k);
    a0 = muladd(a0, load(w0 + k), xv);
    a1 = muladd(a1, load(w1 + k), xv);
    a2 = muladd(a2, load(w2 + k), xv);
    a3 = muladd(a3, load(w3 + k), xv);
  }
  float tail[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  for (; k < C; ++k) {
    tail[0] += w0[k] * x[k];
    tail[1] += w1[k] * x[k];
    tail[2] += w2[k] * x[k];
    tail[3] += w3[k] * x[k];
  }
  return add(hsum4(a0, a1, a2, a3), load(tail));
}
}  // namespace

void f32_gemv__simd128(float* out, const float* inp, const float* weight, const float* bias, int64_t C,
                       int64_t OC) {
  const int64_t OCv = OC & ~(kW - 1);
  int64_t o = 0;
  for (; o < OCv; o += kW) {
    const float* w = weight + o * C;
    vf y = dot4(inp, w, w + C, w + 2 * C, w + 3 * C, C);
    if (bias) y = add(y, load(bias + o));
    store(out + o, y);
  }
  if (o == OC) return;
  // OC % 4 tail rows: rows past OC alias the last one, and only the real ones are stored.
  const int64_t n = OC - o;
  const float* w0 = weight + o * C;
  const float* w1 = n > 1 ? w0 + C : w0;
  const float* w2 = n > 2 ? w1 + C : w1;
  float y[4];
  store(y, dot4(inp, w0, w1, w2, w2, C));
  for (int64_t i = 0; i < n; ++i) out[o + i] = bias ? y[i] + bias[o + i] : y[i];
}
#endif

}  // namespace blockscope::kernels
