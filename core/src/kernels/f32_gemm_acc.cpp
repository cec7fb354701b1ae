// The accumulating 4x8 GEMM micro-kernel of the linear backward (out tile += packed A strip @ packed B panel),
// the three packings it reads, and their portable twins. Same "loadsplat" form as f32_gemm.cpp, no bias.
#include "kernels/kernels.hpp"

#include "kernels/simd128.hpp"

namespace blockscope::kernels {

void f32_pack_a_4__generic(float* packed, const float* src, int64_t ld, int64_t mr, int64_t K) {
  for (int64_t k = 0; k < K; ++k)
    for (int64_t r = 0; r < kGemmMR; ++r) packed[kGemmMR * k + r] = r < mr ? src[r * ld + k] : 0.0f;
}

void f32_pack_at_4__generic(float* packed, const float* src, int64_t ld, int64_t mr, int64_t K) {
  for (int64_t k = 0; k < K; ++k)
    for (int64_t r = 0; r < kGemmMR; ++r) packed[kGemmMR * k + r] = r < mr ? src[k * ld + r] : 0.0f;
}

void f32_pack_b_8__generic(float* packed, const float* src, int64_t ld, int64_t nc, int64_t K) {
  for (int64_t k = 0; k < K; ++k)
    for (int64_t j = 0; j < kGemmNR; ++j) packed[kGemmNR * k + j] = j < nc ? src[k * ld + j] : 0.0f;
}

void f32_gemm_acc_4x8__generic(float* out, int64_t out_stride, const float* packed_a, const float* packed_b,
                               int64_t mr, int64_t nc, int64_t K) {
  for (int64_t r = 0; r < mr; ++r) {
    float acc[kGemmNR] = {};
    for (int64_t k = 0; k < K; ++k) {
      const float a = packed_a[kGemmMR * k + r];
      for (int64_t j = 0; j < kGemmNR; ++j) acc[j] += a * packed_b[kGemmNR * k + j];
    }
    for (int64_t j = 0; j < nc; ++j) out[r * out_stride + j] += acc[j];
  }
}

#ifdef __wasm_simd128__
namespace {
using namespace simd128;

// p[0..n) += the first n (1..8) lanes of lo:hi; memory past p[n - 1] is neither read nor written. In registers
// only, as store_n: the relaxed-SIMD kernel module has no stack of its own (scripts/merge-relaxed-kernels.mjs).
inline void add_store_n(float* p, vf lo, vf hi, int64_t n) {
  if (n == kGemmNR) {
    store(p, add(load(p), lo));
    store(p + 4, add(load(p + 4), hi));
    return;
  }
  if (n & 4) {
    store(p, add(load(p), lo));
    lo = hi;
    p += 4;
  }
  if (n & 2) {
    wasm_v128_store64_lane(p, add(wasm_v128_load64_zero(p), lo), 0);
    lo = wasm_i64x2_shuffle(lo, lo, 1, 1);
    p += 2;
  }
  if (n & 1) p[0] += wasm_f32x4_extract_lane(lo, 0);
}
}  // namespace

void f32_pack_a_4__simd128(float* packed, const float* src, int64_t ld, int64_t mr, int64_t K) {
  if (mr < kGemmMR) {  // only the last strip, when the row count is not a multiple of 4
    f32_pack_a_4__generic(packed, src, ld, mr, K);
    return;
  }
  // Four k at a time: 4 floats from each of the 4 rows, one 4x4 transpose, four packed rows out.
  const float *s0 = src, *s1 = s0 + ld, *s2 = s1 + ld, *s3 = s2 + ld;
  const int64_t Kv = K & ~(kW - 1);
  int64_t k = 0;
  for (; k < Kv; k += kW, packed += kW * kGemmMR) {
    vf r0 = load(s0 + k), r1 = load(s1 + k), r2 = load(s2 + k), r3 = load(s3 + k);
    transpose4(r0, r1, r2, r3);
    store(packed, r0), store(packed + 4, r1), store(packed + 8, r2), store(packed + 12, r3);
  }
  for (; k < K; ++k, packed += kGemmMR) packed[0] = s0[k], packed[1] = s1[k], packed[2] = s2[k], packed[3] = s3[k];
}

void f32_pack_at_4__simd128(float* packed, const float* src, int64_t ld, int64_t mr, int64_t K) {
  if (mr < kGemmMR) {
    f32_pack_at_4__generic(packed, src, ld, mr, K);
    return;
  }
  for (int64_t k = 0; k < K; ++k, src += ld, packed += kGemmMR) store(packed, load(src));
}

void f32_pack_b_8__simd128(float* packed, const float* src, int64_t ld, int64_t nc, int64_t K) {
  if (nc < kGemmNR) {  // only the last panel, when the column count is not a multiple of 8
    f32_pack_b_8__generic(packed, src, ld, nc, K);
    return;
  }
  for (int64_t k = 0; k < K; ++k, src += ld, packed += kGemmNR) {
    store(packed, load(src));
    store(packed + 4, load(src + 4));
  }
}

void SIMD_KERNEL(f32_gemm_acc_4x8)(float* out, int64_t out_stride, const float* packed_a,
                                   const float* packed_b, int64_t mr, int64_t nc, int64_t K) {
  // Both operands packed: one pointer each with constant offsets, so V8 spends no address arithmetic per
  // row (~7% faster than reading four strided A rows, measured). Padding rows of the strip are zero; their
  // sums are computed and dropped, since += cannot store twice the way the forward GEMM's aliased rows do.
  vf c0lo = zero(), c0hi = zero(), c1lo = zero(), c1hi = zero();
  vf c2lo = zero(), c2hi = zero(), c3lo = zero(), c3hi = zero();
  const float* a = packed_a;
  const float* w = packed_b;
  for (const float* const a_end = a + kGemmMR * K; a != a_end; a += kGemmMR, w += kGemmNR) {
    const vf wlo = load(w), whi = load(w + 4);
    const vf x0 = load_splat(a), x1 = load_splat(a + 1);
    const vf x2 = load_splat(a + 2), x3 = load_splat(a + 3);
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
