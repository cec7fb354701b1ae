// Matrix-vector kernels for single-row inputs (token-by-token decoding): out = weight @ inp + bias, weight
// read once, row-major and unpacked. Decoding is bound by how fast the weights stream from memory, so the
// SIMD128 kernel reads four weight rows at a time, one from each quarter of the matrix, 16 floats of each per
// step into four independent accumulators per row: the adds of one step do not wait for each other, and four
// sequential streams keep more of memory's bandwidth busy than one (a single thread reads ~11 GB/s from one stream
// here and ~13.3 GB/s from two or more: the hardware prefetcher runs ahead on each; the kernel reached 10.8 GB/s
// with two rows at a time and 12.7-13.2 with four).
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

// dot(x, w) for four rows quarter_stride floats apart (w0, w0 + quarter_stride, ...), each summed exactly as dot()
// sums it (the same bits), returned as the four lanes: four sequential streams through memory. Not inlined, as dot.
__attribute__((noinline)) vf dot4(const float* x, const float* w0, int64_t quarter_stride, int64_t C, int64_t C16,
                                  int64_t C4) {
  const float* w1 = w0 + quarter_stride;
  const float* w2 = w1 + quarter_stride;
  const float* w3 = w2 + quarter_stride;
  vf a0 = zero(), a1 = zero(), a2 = zero(), a3 = zero();
  vf b0 = zero(), b1 = zero(), b2 = zero(), b3 = zero();
  vf c0 = zero(), c1 = zero(), c2 = zero(), c3 = zero();
  vf d0 = zero(), d1 = zero(), d2 = zero(), d3 = zero();
  int64_t k = 0;
  for (; k < C16; k += 16) {
    const vf x0 = load(x + k), x1 = load(x + k + 4), x2 = load(x + k + 8), x3 = load(x + k + 12);
    a0 = muladd(a0, load(w0 + k), x0), b0 = muladd(b0, load(w1 + k), x0);
    c0 = muladd(c0, load(w2 + k), x0), d0 = muladd(d0, load(w3 + k), x0);
    a1 = muladd(a1, load(w0 + k + 4), x1), b1 = muladd(b1, load(w1 + k + 4), x1);
    c1 = muladd(c1, load(w2 + k + 4), x1), d1 = muladd(d1, load(w3 + k + 4), x1);
    a2 = muladd(a2, load(w0 + k + 8), x2), b2 = muladd(b2, load(w1 + k + 8), x2);
    c2 = muladd(c2, load(w2 + k + 8), x2), d2 = muladd(d2, load(w3 + k + 8), x2);
    a3 = muladd(a3, load(w0 + k + 12), x3), b3 = muladd(b3, load(w1 + k + 12), x3);
    c3 = muladd(c3, load(w2 + k + 12), x3), d3 = muladd(d3, load(w3 + k + 12), x3);
  }
  for (; k < C4; k += 4) {
    const vf xk = load(x + k);
    a0 = muladd(a0, load(w0 + k), xk), b0 = muladd(b0, load(w1 + k), xk);
    c0 = muladd(c0, load(w2 + k), xk), d0 = muladd(d0, load(w3 + k), xk);
  }
  return wasm_f32x4_make(finish(a0, a1, a2, a3, x, w0, k, C), finish(b0, b1, b2, b3, x, w1, k, C),
                         finish(c0, c1, c2, c3, x, w2, k, C), finish(d0, d1, d2, d3, x, w3, k, C));
}

inline void put(float* out, const float* bias, int64_t o, float sum) { out[o] = bias ? sum + bias[o] : sum; }
}  // namespace

void SIMD_KERNEL(f32_gemv)(float* out, const float* inp, const float* weight, const float* bias, int64_t C,
                           int64_t OC) {
  const int64_t C16 = C & ~int64_t{15}, C4 = C & ~int64_t{3};
  // Rows o, o + OC/4, o + OC/2 and o + 3 OC/4 together; the last OC % 4 rows one at a time.
  const int64_t quarter = OC / 4;
  // The sums stay in registers (no array on the stack): the relaxed-SIMD kernel module has no stack of its own.
  for (int64_t o = 0; o < quarter; ++o) {
    const vf s4 = dot4(inp, weight + o * C, quarter * C, C, C16, C4);
    put(out, bias, o, wasm_f32x4_extract_lane(s4, 0));
    put(out, bias, o + quarter, wasm_f32x4_extract_lane(s4, 1));
    put(out, bias, o + 2 * quarter, wasm_f32x4_extract_lane(s4, 2));
    put(out, bias, o + 3 * quarter, wasm_f32x4_extract_lane(s4, 3));
  }
  for (int64_t o = 4 * quarter; o < OC; ++o) put(out, bias, o, dot(inp, weight + o * C, C, C16, C4));
}
#endif

}  // namespace blockscope::kernels
