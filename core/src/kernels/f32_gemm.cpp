// The packed 4x8 GEMM micro-kernel (out tile = inp rows @ packed panel), its panel packing, and their
// portable twins. The SIMD128 GEMM is the "loadsplat" form: per k, splat inp[r][k] against one panel row.
#include "kernels/kernels.hpp"

#include "kernels/simd128.hpp"

namespace blockscope::kernels {

void f32_gemm_pack_8__generic(float* packed, const float* weight, const float* bias, int64_t nc, int64_t C) {
  for (int64_t j = 0; j < kGemmNR; ++j) packed[j] = (bias && j < nc) ? bias[j] : 0.0f;
  for (int64_t k = 0; k < C; ++k) {
    float* p = packed + kGemmNR * (1 + k);
    for (int64_t j = 0; j < nc; ++j) p[j] = weight[j * C + k];
    for (int64_t j = nc; j < kGemmNR; ++j) p[j] = 0.0f;
  }
}

void f32_gemm_4x8__generic(float* out, int64_t out_stride, const float* inp, int64_t inp_stride,
                           const float* packed, int64_t mr, int64_t nc, int64_t C) {
  for (int64_t r = 0; r < mr; ++r) {
    float acc[kGemmNR];
    for (int64_t j = 0; j < kGemmNR; ++j) acc[j] = packed[j];
    const float* a = inp + r * inp_stride;
    for (int64_t k = 0; k < C; ++k) {
      const float* w = packed + kGemmNR * (1 + k);
      for (int64_t j = 0; j < kGemmNR; ++j) acc[j] += a[k] * w[j];
    }
    for (int64_t j = 0; j < nc; ++j) out[r * out_stride + j] = acc[j];
  }
}

#ifdef __wasm_simd128__
void f32_gemm_pack_8__simd128(float* packed, const float* weight, const float* bias, int64_t nc, int64_t C) {
  using namespace simd128;
  if (nc < kGemmNR) {  // only the last panel, when OC % 8 != 0
    f32_gemm_pack_8__generic(packed, weight, bias, nc, C);
    return;
  }
  store(packed, bias ? load(bias) : zero());
  store(packed + 4, bias ? load(bias + 4) : zero());
  // Four k at a time: 4 floats from each of the 8 rows, two 4x4 transposes, four packed rows out.
  const float *w0 = weight, *w1 = w0 + C, *w2 = w1 + C, *w3 = w2 + C;
  const float *w4 = w3 + C, *w5 = w4 + C, *w6 = w5 + C, *w7 = w6 + C;
  float* p = packed + kGemmNR;
  const int64_t Cv = C & ~(kW - 1);
  int64_t k = 0;
  for (; k < Cv; k += kW, p += kW * kGemmNR) {
    vf r0 = load(w0 + k), r1 = load(w1 + k), r2 = load(w2 + k), r3 = load(w3 + k);
    vf r4 = load(w4 + k), r5 = load(w5 + k), r6 = load(w6 + k), r7 = load(w7 + k);
    transpose4(r0, r1, r2, r3);
    transpose4(r4, r5, r6, r7);
    store(p, r0), store(p + 4, r4), store(p + 8, r1), store(p + 12, r5);
    store(p + 16, r2), store(p + 20, r6), store(p + 24, r3), store(p + 28, r7);
  }
  for (; k < C; ++k, p += kGemmNR)
    for (int64_t j = 0; j < kGemmNR; ++j) p[j] = weight[j * C + k];
}

void SIMD_KERNEL(f32_gemm_4x8)(float* out, int64_t out_stride, const float* inp, int64_t inp_stride,
                               const float* packed, int64_t mr, int64_t nc, int64_t C) {
  using namespace simd128;
  // Rows past mr alias the row before them (as in XNNPACK): they recompute and store identical values,
  // so the loop stays branch-free and never touches memory outside the tile.
  const float* a0 = inp;
  const float* a1 = mr > 1 ? a0 + inp_stride : a0;
  const float* a2 = mr > 2 ? a1 + inp_stride : a1;
  const float* a3 = mr > 3 ? a2 + inp_stride : a2;
  vf c0lo = load(packed), c0hi = load(packed + 4);  // bias row
  vf c1lo = c0lo, c1hi = c0hi, c2lo = c0lo, c2hi = c0hi, c3lo = c0lo, c3hi = c0hi;
  const float* w = packed + kGemmNR;
  for (int64_t k = 0; k < C; ++k, w += kGemmNR) {
    const vf wlo = load(w), whi = load(w + 4);
    const vf x0 = load_splat(a0 + k), x1 = load_splat(a1 + k);
    const vf x2 = load_splat(a2 + k), x3 = load_splat(a3 + k);
    c0lo = muladd(c0lo, x0, wlo), c0hi = muladd(c0hi, x0, whi);
    c1lo = muladd(c1lo, x1, wlo), c1hi = muladd(c1hi, x1, whi);
    c2lo = muladd(c2lo, x2, wlo), c2hi = muladd(c2hi, x2, whi);
    c3lo = muladd(c3lo, x3, wlo), c3hi = muladd(c3hi, x3, whi);
  }
  float* o0 = out;
  float* o1 = mr > 1 ? o0 + out_stride : o0;
  float* o2 = mr > 2 ? o1 + out_stride : o1;
  float* o3 = mr > 3 ? o2 + out_stride : o2;
  store_n(o3, c3lo, c3hi, nc);
  store_n(o2, c2lo, c2hi, nc);
  store_n(o1, c1lo, c1hi, nc);
  store_n(o0, c0lo, c0hi, nc);
}
#endif

}  // namespace blockscope::kernels
