// Matrix-vector kernels for single-row inputs (token-by-token decoding): out = weight @ inp + bias, weight
// read once, row-major and unpacked. Decoding is bound by how fast the weights stream from memory, so the
// SIMD128 kernel reads two weight rows at a time, one from each half of the matrix, 16 floats of each per step
// into four independent accumulators per row: the adds of one step do not wait for each other, and the two
// sequential streams keep more of memory's bandwidth busy than one (a single thread reads ~11 GB/s from one stream
// here and ~13 GB/s from two: the hardware prefetcher runs ahead on each).
#include "kernels/kernels.hpp"

#include "kernels/simd128.hpp"

namespace blockscope::kernels {

// The generic twin sums in the SIMD128 kernel's order: 16 partial sums (lane j of accumulator a holds the
// terms k = 16 i + 4 a + j), the 4-wide tail into accumulator 0, the accumulators added pairwise, the lanes
// added pairwise, then the scalar tail. Same contract, and in practice the same bits.
void f32_gemv__generic(float* out, const float* inp, const float* weight, const float* bias, int64_t C,
                       int64_t OC) {
  const int64_t C16 = C & ~int64_t{15}, C4 = C & ~int64_t{3};
  for (int64_t o = 0; o < OC; ++o) {
    const float* w = weight + o * C;
    float acc[4][4] = {};
    int64_t k = 0;
    for (; k < C16; k += 16)
      for (int a = 0; a < 4; ++a)
        for (int j = 0; j < 4; ++j) acc[a][j] += w[k + 4 * a + j] * inp[k + 4 * a + j];
    for (; k < C4; k += 4)
      for (int j = 0; j < 4; ++j) acc[0][j] += w[k + j] * inp[k + j];
    float lane[4];
    for (int j = 0; j < 4; ++j) lane[j] = (acc[0][j] + acc[1][j]) + (acc[2][j] + acc[3][j]);
    float sum = (lane[0] + lane[2]) + (lane[1] + lane[3]);
    for (; k < C; ++k) sum += w[k] * inp[k];
    out[o] = bias ? sum + bias[o] : sum;
  }
}

#ifdef __wasm_simd128__
namespace {
using namespace simd128;

// (l0 + l2) + (l1 + l3) of a0 + a1 + a2 + a3, then the scalar tail: the end of dot() for one row.
inline float finish(vf a0, vf a1, vf a2, vf a3, const float* x, const float* w, int64_t k, int64_t C) {
  const vf l = add(add(a0, a1), add(a2, a3));
  const vf h = add(l, wasm_i32x4_shuffle(l, l, 2, 3, 0, 1));
  float sum = wasm_f32x4_extract_lane(h, 0) + wasm_f32x4_extract_lane(h, 1);
  for (; k < C; ++k) sum += w[k] * x[k];
  return sum;
}

// dot(w, x) over C elements, summed in the order f32_gemv__generic documents. Not inlined on purpose: V8 has no
// on-stack replacement for wasm, so a call runs to its end in the tier it entered. One call per row lets the
// first pass over the 50257-row LM head move from the baseline compiler (Liftoff) to optimized code after a
// few rows instead of running all of it unoptimized (the slow first decoding step).
__attribute__((noinline)) float dot(const float* x, const float* w, int64_t C, int64_t C16, int64_t C4) {
  vf a0 = zero(), a1 = zero(), a2 = zero(), a3 = zero();
  int64_t k = 0;
  for (; k < C16; k += 16) {
    a0 = muladd(a0, load(w + k), load(x + k));
    a1 = muladd(a1, load(w + k + 4), load(x + k + 4));
    a2 = muladd(a2, load(w + k + 8), load(x + k + 8));
    a3 = muladd(a3, load(w + k + 12), load(x + k + 12));
  }
  for (; k < C4; k += 4) a0 = muladd(a0, load(w + k), load(x + k));
  return finish(a0, a1, a2, a3, x, w, k, C);
}

// dot(x, wa) and dot(x, wb) in one pass, each summed exactly as dot() sums it (the same bits). Not inlined, as dot.
__attribute__((noinline)) void dot2(float* sa, float* sb, const float* x, const float* wa, const float* wb,
                                    int64_t C, int64_t C16, int64_t C4) {
  vf a0 = zero(), a1 = zero(), a2 = zero(), a3 = zero();
  vf b0 = zero(), b1 = zero(), b2 = zero(), b3 = zero();
  int64_t k = 0;
  for (; k < C16; k += 16) {
    const vf x0 = load(x + k), x1 = load(x + k + 4), x2 = load(x + k + 8), x3 = load(x + k + 12);
    a0 = muladd(a0, load(wa + k), x0);
    b0 = muladd(b0, load(wb + k), x0);
    a1 = muladd(a1, load(wa + k + 4), x1);
    b1 = muladd(b1, load(wb + k + 4), x1);
    a2 = muladd(a2, load(wa + k + 8), x2);
    b2 = muladd(b2, load(wb + k + 8), x2);
    a3 = muladd(a3, load(wa + k + 12), x3);
    b3 = muladd(b3, load(wb + k + 12), x3);
  }
  for (; k < C4; k += 4) {
    const vf xk = load(x + k);
    a0 = muladd(a0, load(wa + k), xk);
    b0 = muladd(b0, load(wb + k), xk);
  }
  *sa = finish(a0, a1, a2, a3, x, wa, k, C);
  *sb = finish(b0, b1, b2, b3, x, wb, k, C);
}
}  // namespace

void f32_gemv__simd128(float* out, const float* inp, const float* weight, const float* bias, int64_t C,
                       int64_t OC) {
  const int64_t C16 = C & ~int64_t{15}, C4 = C & ~int64_t{3};
  // Row o of the first half with row o + half of the second; an odd last row on its own.
  const int64_t half = OC / 2;
  for (int64_t o = 0; o < half; ++o) {
    float sa, sb;
    dot2(&sa, &sb, inp, weight + o * C, weight + (o + half) * C, C, C16, C4);
    out[o] = bias ? sa + bias[o] : sa;
    out[o + half] = bias ? sb + bias[o + half] : sb;
  }
  if (OC % 2) {
    const float s = dot(inp, weight + (OC - 1) * C, C, C16, C4);
    out[OC - 1] = bias ? s + bias[OC - 1] : s;
  }
}
#endif

}  // namespace blockscope::kernels
