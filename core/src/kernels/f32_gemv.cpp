// Matrix-vector kernels for single-row inputs (token-by-token decoding): out = weight @ inp + bias, weight
// read once, row-major and unpacked. Decoding is bound by how fast the weights stream from memory, so the
// SIMD128 kernel reads one weight row at a time, 16 floats per step into four independent accumulators: the
// adds of one step do not wait for each other, and the loads run at the machine's read bandwidth.
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

// dot(w, x) over C elements, summed in the order f32_gemv__generic documents.
inline float dot(const float* x, const float* w, int64_t C, int64_t C16, int64_t C4) {
  vf a0 = zero(), a1 = zero(), a2 = zero(), a3 = zero();
  int64_t k = 0;
  for (; k < C16; k += 16) {
    a0 = muladd(a0, load(w + k), load(x + k));
    a1 = muladd(a1, load(w + k + 4), load(x + k + 4));
    a2 = muladd(a2, load(w + k + 8), load(x + k + 8));
    a3 = muladd(a3, load(w + k + 12), load(x + k + 12));
  }
  for (; k < C4; k += 4) a0 = muladd(a0, load(w + k), load(x + k));
  const vf l = add(add(a0, a1), add(a2, a3));
  // (l0 + l2) + (l1 + l3)
  const vf h = add(l, wasm_i32x4_shuffle(l, l, 2, 3, 0, 1));
  float sum = wasm_f32x4_extract_lane(h, 0) + wasm_f32x4_extract_lane(h, 1);
  for (; k < C; ++k) sum += w[k] * x[k];
  return sum;
}
}  // namespace

void f32_gemv__simd128(float* out, const float* inp, const float* weight, const float* bias, int64_t C,
                       int64_t OC) {
  const int64_t C16 = C & ~int64_t{15}, C4 = C & ~int64_t{3};
  for (int64_t o = 0; o < OC; ++o) {
    const float s = dot(inp, weight + o * C, C, C16, C4);
    out[o] = bias ? s + bias[o] : s;
  }
}
#endif

}  // namespace blockscope::kernels
