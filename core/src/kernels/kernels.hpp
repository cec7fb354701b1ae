// Hand-written matrix kernels behind linear_forward and its backward, named XNNPACK-style (dtype_op_tile__isa).
// Every SIMD128 kernel has a portable *_generic twin with the same contract. Internal header, not in include/.
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

// ---- Attention for a few query rows over a KV cache (decoding), reading keys and values in place ----

// scores[s] = dot(q, k + s * stride) over hs elements, for s < S: one query row against S key rows that are
// stride floats apart (one head's slice of a (rows, C) cache). Nothing past scores[S - 1] is written.
using AttentionScoresFn = void (*)(float* scores, const float* q, const float* k, int64_t stride, int64_t hs,
                                   int64_t S);
void f32_attention_scores__generic(float* scores, const float* q, const float* k, int64_t stride, int64_t hs,
                                   int64_t S);

// out[j] = sum_s p[s] * v[s * stride + j] for j < hs: the p-weighted sum of S value rows stride floats apart.
using AttentionWeightedSumFn = void (*)(float* out, const float* p, const float* v, int64_t stride, int64_t hs,
                                        int64_t S);
void f32_attention_weighted_sum__generic(float* out, const float* p, const float* v, int64_t stride,
                                         int64_t hs, int64_t S);

#ifdef __wasm_simd128__
void f32_attention_scores__simd128(float* scores, const float* q, const float* k, int64_t stride, int64_t hs,
                                   int64_t S);
void f32_attention_weighted_sum__simd128(float* out, const float* p, const float* v, int64_t stride,
                                         int64_t hs, int64_t S);
#endif

// ---- Relaxed-SIMD variants of the kernels that multiply-add (the simd-relaxed wasm flavour) ----
// The same sources as the __simd128 kernels, compiled a second time with -mrelaxed-simd by clang 16 into a kernel
// module of their own (simd128.hpp: muladd becomes one f32x4.relaxed_madd, which Emscripten 3.1.6 cannot emit),
// which exports them under their plain names. The Emscripten build of the flavour (BLOCKSCOPE_WASM_RELAXED) leaves
// them undefined, so they become imports (from a module of their own: Emscripten's JS glue provides only its "env"
// imports, so the glue stays the SIMD128 build's), and scripts/merge-relaxed-kernels.mjs merges the two modules.
// Same contracts as the __simd128 kernels; results within the same tolerances, not bit for bit.
#if defined(__wasm_relaxed_simd__)
#define BLOCKSCOPE_RELAXED_KERNEL(name) __attribute__((export_name(#name)))
#elif defined(BLOCKSCOPE_WASM_RELAXED)
#define BLOCKSCOPE_RELAXED_KERNEL(name) __attribute__((import_module("relaxed_simd"), import_name(#name)))
#endif
#ifdef BLOCKSCOPE_RELAXED_KERNEL
BLOCKSCOPE_RELAXED_KERNEL(f32_gemm_4x8)
void f32_gemm_4x8__relaxed(float* out, int64_t out_stride, const float* inp, int64_t inp_stride,
                           const float* packed, int64_t mr, int64_t nc, int64_t C);
BLOCKSCOPE_RELAXED_KERNEL(f32_gemv)
void f32_gemv__relaxed(float* out, const float* inp, const float* weight, const float* bias, int64_t C,
                       int64_t OC);
BLOCKSCOPE_RELAXED_KERNEL(f32_attention_scores)
void f32_attention_scores__relaxed(float* scores, const float* q, const float* k, int64_t stride, int64_t hs,
                                   int64_t S);
BLOCKSCOPE_RELAXED_KERNEL(f32_attention_weighted_sum)
void f32_attention_weighted_sum__relaxed(float* out, const float* p, const float* v, int64_t stride,
                                         int64_t hs, int64_t S);
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
#ifdef BLOCKSCOPE_WASM_RELAXED
extern const LinearKernels kLinearRelaxed;  // kLinearSimd128 with the relaxed GEMM and GEMV (dispatch.cpp)
#endif

// out = inp @ weight^T + bias on the given kernels, as linear_forward: out (N, OC); inp (N, C);
// weight (OC, C); bias (OC) or null. Packing scratch is a thread-local buffer reused across calls.
void f32_linear(const LinearKernels& k, float* out, const float* inp, const float* weight, const float* bias,
                int64_t N, int64_t C, int64_t OC);

// ---- Backward of f32_linear: accumulating GEMMs (C += A @ B) on 4x8 tiles, both operands packed ----

// A strip of A for the accumulating GEMM: packed (K, 4), packed[k][r] = A[r][k] for r < mr <= 4, rows mr..3
// zero. f32_pack_a_4 reads A row-major, A[r][k] = src[r * ld + k] (a 4 x K transpose); f32_pack_at_4 reads it
// as stored transposed, A[r][k] = src[k * ld + r] (a copy of 4 floats per k).
using PackAFn = void (*)(float* packed, const float* src, int64_t ld, int64_t mr, int64_t K);
void f32_pack_a_4__generic(float* packed, const float* src, int64_t ld, int64_t mr, int64_t K);
void f32_pack_at_4__generic(float* packed, const float* src, int64_t ld, int64_t mr, int64_t K);

// A panel of B: packed (K, 8), packed[k][j] = src[k * ld + j] for j < nc <= 8, columns nc..7 zero. Unlike
// f32_gemm_pack_8 nothing is transposed and there is no bias row: B is used as stored.
using PackBFn = void (*)(float* packed, const float* src, int64_t ld, int64_t nc, int64_t K);
void f32_pack_b_8__generic(float* packed, const float* src, int64_t ld, int64_t nc, int64_t K);

// One tile of out += A @ B from a packed strip and panel: out[r][j] += s[r][j], s[r][j] = sum_k
// packed_a[k][r] * packed_b[k][j] summed from 0 in k order, for r < mr <= 4, j < nc <= 8, k < K. Rows of out
// are out_stride apart; nothing outside the mr x nc tile is read or written.
using GemmAccFn = void (*)(float* out, int64_t out_stride, const float* packed_a, const float* packed_b,
                           int64_t mr, int64_t nc, int64_t K);
void f32_gemm_acc_4x8__generic(float* out, int64_t out_stride, const float* packed_a, const float* packed_b,
                               int64_t mr, int64_t nc, int64_t K);

// sums (cols) += column sums of src (rows, cols), each column summed from 0 in row order, then added.
using ColsumAccFn = void (*)(float* sums, const float* src, int64_t rows, int64_t cols);
void f32_colsum_acc_16__generic(float* sums, const float* src, int64_t rows, int64_t cols);

#ifdef __wasm_simd128__
void f32_pack_a_4__simd128(float* packed, const float* src, int64_t ld, int64_t mr, int64_t K);
void f32_pack_at_4__simd128(float* packed, const float* src, int64_t ld, int64_t mr, int64_t K);
void f32_pack_b_8__simd128(float* packed, const float* src, int64_t ld, int64_t nc, int64_t K);
void f32_gemm_acc_4x8__simd128(float* out, int64_t out_stride, const float* packed_a, const float* packed_b,
                               int64_t mr, int64_t nc, int64_t K);
void f32_colsum_acc_16__simd128(float* sums, const float* src, int64_t rows, int64_t cols);
#endif

#ifdef BLOCKSCOPE_RELAXED_KERNEL
BLOCKSCOPE_RELAXED_KERNEL(f32_gemm_acc_4x8)
void f32_gemm_acc_4x8__relaxed(float* out, int64_t out_stride, const float* packed_a, const float* packed_b,
                               int64_t mr, int64_t nc, int64_t K);
#endif

// A kernel set for f32_linear_backward, and its cache blocking (GotoBLAS-style): each product is cut into
// kc reduction terms x mc output rows; a kc x 8 panel of B stays in L1 while the packed mc x kc block of A,
// in L2, streams through it. Any mc, kc >= 1 give the same sums up to rounding (tests use tiny ones).
struct LinearBackwardKernels {
  PackAFn pack_a;   // dinp: A = dout, row-major
  PackAFn pack_at;  // dweight: A = dout^T, stored as dout
  PackBFn pack_b;
  GemmAccFn gemm_acc;
  ColsumAccFn colsum_acc;
  int64_t mc;
  int64_t kc;
};
extern const LinearBackwardKernels kLinearBackwardGeneric;
#ifdef __wasm_simd128__
extern const LinearBackwardKernels kLinearBackwardSimd128;
#endif
#ifdef BLOCKSCOPE_WASM_RELAXED
extern const LinearBackwardKernels kLinearBackwardRelaxed;  // kLinearBackwardSimd128 with the relaxed GEMM
#endif

// Backward of f32_linear, accumulating (+=) into the gradients as PyTorch autograd does:
//   dinp (N, C)     += dout (N, OC) @ weight (OC, C)      skipped when dinp is null
//   dweight (OC, C) += dout^T @ inp (N, C)                skipped when dweight is null
//   dbias (OC)      += column sums of dout                skipped when dbias is null
// Packing scratch lives in thread-local buffers reused across calls, sized by kc, mc and C (not by N or OC).
void f32_linear_backward(const LinearBackwardKernels& k, float* dinp, float* dweight, float* dbias,
                         const float* dout, const float* inp, const float* weight, int64_t N, int64_t C,
                         int64_t OC);

}  // namespace blockscope::kernels
