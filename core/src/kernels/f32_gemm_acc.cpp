// The accumulating 4x8 GEMM micro-kernel of the linear backward (out tile += a rows @ packed panel), the
// panel packing it reads, and their portable twins. Same "loadsplat" form as f32_gemm.cpp, without bias.
#include "kernels/kernels.hpp"

#include "kernels/simd128.hpp"

namespace blockscope::kernels {

void f32_pack_rows_8__generic(float* packed, const float* src, int64_t ld, int64_t nc, int64_t K) {
  for (int64_t k = 0; k < K; ++k) {
    float* p = packed + kGemmNR * k;
    for (int64_t j = 0; j < nc; ++j) p[j] = src[k * ld + j];
    for (int64_t j = nc; j < kGemmNR; ++j) p[j] = 0.0f;
  }
}

void f32_gemm_acc_4x8__generic(float* out, int64_t out_stride, const float* a, int64_t a_stride,
                               const float* packed, int64_t mr, int64_t nc, int64_t K) {
  for (int64_t r = 0; r < mr; ++r) {
    float acc[kGemmNR] = {};
    const float* ar = a + r * a_stride;
    for (int64_t k = 0; k < K; ++k) {
      const float* w = packed + kGemmNR * k;
      for (int64_t j = 0; j < kGemmNR; ++j) acc[j] += ar[k] * w[j];
    }
    for (int64_t j = 0; j < nc; ++j) out[r * out_stride + j] += acc[j];
  }
}

#ifdef __wasm_simd128__
namespace {
using namespace simd128;

// p[0..n) += the first n (1..8) lanes of lo:hi; memory past p[n - 1] is neither read nor written.
inline void add_store_n(float* p, vf lo, vf hi, int64_t n) {
  if (n == kGemmNR) {
    store(p, add(load(p), lo));
    store(p + 4, add(load(p + 4), hi));
    return;
  }
  alignas(16) float t[kGemmNR];
  store(t, lo);
  store(t + 4, hi);
  for (int64_t j = 0; j < n; ++j) p[j] += t[j];
}
}  // namespace

void f32_pack_rows_8__simd128(float* packed, const float* src, int64_t ld, int64_t nc, int64_t K) {
  if (nc < kGemmNR) {  // only the last panel, when the column count is not a multiple of 8
    f32_pack_rows_8__generic(packed, src, ld, nc, K);
    return;
  }
  for (int64_t k = 0; k < K; ++k, src += ld, packed += kGemmNR) {
    store(packed, load(src));
    store(packed + 4, load(src + 4));
  }
}

void f32_gemm_acc_4x8__simd128(float* out, int64_t out_stride, const float* a, int64_t a_stride,
                               const float* packed, int64_t mr, int64_t nc, int64_t K) {
  // Rows of a past mr alias the row before them, so the loop stays branch-free; unlike the forward GEMM the
  // stores cannot alias too (+= twice would double-count), so only the mr real rows are stored.
  const float* a0 = a;
  const float* a1 = mr > 1 ? a0 + a_stride : a0;
  const float* a2 = mr > 2 ? a1 + a_stride : a1;
  const float* a3 = mr > 3 ? a2 + a_stride : a2;
  vf c0lo = zero(), c0hi = zero(), c1lo = zero(), c1hi = zero();
  vf c2lo = zero(), c2hi = zero(), c3lo = zero(), c3hi = zero();
  const float* w = packed;
  for (int64_t k = 0; k < K; ++k, w += kGemmNR) {
    const vf wlo = load(w), whi = load(w + 4);
    const vf x0 = load_splat(a0 + k), x1 = load_splat(a1 + k);
    const vf x2 = load_splat(a2 + k), x3 = load_splat(a3 + k);
    c0lo = muladd(c0lo, x0, wlo), c0hi = muladd(c0hi, x0, whi);
    c1lo = muladd(c1lo, x1, wlo), c1hi = muladd(c1hi, x1, whi);
    c2lo = muladd(c2lo, x2, wlo), c2hi = muladd(c2hi, x2, whi);
    c3lo = muladd(c3lo, x3, wlo), c3hi = muladd(c3hi, x3, whi);
  }
  add_store_n(out, c0lo, c0hi, nc);
  if (mr > 1) add_store_n(out + out_stride, c1lo, c1hi, nc);
  if (mr > 2) add_store_n(out + 2 * out_stride, c2lo, c2hi, nc);
  if (mr > 3) add_store_n(out + 3 * out_stride, c3lo, c3hi, nc);
}
#endif

}  // namespace blockscope::kernels
