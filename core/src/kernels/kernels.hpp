// Hand-written matrix kernels behind linear_forward, named XNNPACK-style (dtype_op_tile__isa). Every
// SIMD128 kernel has a portable *_generic twin with the same contract. Internal header, not in include/.
#pragma once

#include <cstdint>

namespace blockscope::kernels {

// Tile of the GEMM micro-kernel: MR rows of inp by NR output columns (one packed panel).
inline constexpr int64_t kGemmMR = 4;
inline constexpr int64_t kGemmNR = 8;

// Packs nc <= 8 rows of a weight (OC, C) transposed, behind their bias, into the panel the 4x8 GEMM reads:
// packed (1 + C, 8): row 0 holds bias[0..nc) (zeros when bias is null), row 1 + k holds weight[0..nc)[k];
// columns nc..7 are zero. weight and bias point at the panel's first output channel.
using PackFn = void (*)(float* packed, const float* weight, const float* bias, int64_t nc, int64_t C);
void f32_gemm_pack_8__generic(float* packed, const float* weight, const float* bias, int64_t nc, int64_t C);

// One tile of out = inp @ weight^T + bias: out[r][j] = packed[0][j] + sum_k inp[r][k] * packed[1 + k][j]
// for r < mr <= 4, j < nc <= 8, k < C. Rows of inp are inp_stride apart, rows of out out_stride apart;
// nothing outside the mr x nc tile is read from inp or written to out.
using GemmFn = void (*)(float* out, int64_t out_stride, const float* inp, int64_t inp_stride,
                        const float* packed, int64_t mr, int64_t nc, int64_t C);
void f32_gemm_4x8__generic(float* out, int64_t out_stride, const float* inp, int64_t inp_stride,
                           const float* packed, int64_t mr, int64_t nc, int64_t C);

// Matrix-vector product, one input row: out[o] = dot(weight[o], inp) + bias[o] (bias may be null).
// out (OC); inp (C); weight (OC, C).
using GemvFn = void (*)(float* out, const float* inp, const float* weight, const float* bias, int64_t C,
                        int64_t OC);
void f32_gemv__generic(float* out, const float* inp, const float* weight, const float* bias, int64_t C,
                       int64_t OC);

#ifdef __wasm_simd128__
void f32_gemm_pack_8__simd128(float* packed, const float* weight, const float* bias, int64_t nc, int64_t C);
void f32_gemm_4x8__simd128(float* out, int64_t out_stride, const float* inp, int64_t inp_stride,
                           const float* packed, int64_t mr, int64_t nc, int64_t C);
void f32_gemv__simd128(float* out, const float* inp, const float* weight, const float* bias, int64_t C,
                       int64_t OC);
#endif

// A kernel set for f32_linear: inputs with fewer than gemv_below_n rows take the GEMV kernel row by row
// (packing would cost as much as the product), the rest take the packed GEMM.
struct LinearKernels {
  PackFn pack;
  GemmFn gemm;
  GemvFn gemv;
  int64_t gemv_below_n;
};
extern const LinearKernels kLinearGeneric;
#ifdef __wasm_simd128__
extern const LinearKernels kLinearSimd128;
#endif

// out = inp @ weight^T + bias on the given kernels, as linear_forward: out (N, OC); inp (N, C);
// weight (OC, C); bias (OC) or null. Packing scratch is a thread-local buffer reused across calls.
void f32_linear(const LinearKernels& k, float* out, const float* inp, const float* weight, const float* bias,
                int64_t N, int64_t C, int64_t OC);

}  // namespace blockscope::kernels
