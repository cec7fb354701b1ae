// Int8 (Q8_0-like) weight kernels: quantization, the int8 x int8 GEMV used for decoding, and the linear
// loop around it. Every SIMD128 kernel has a *_generic twin that gives bit-identical results (integer dot
// products are exact; the float operations are the same ones in the same order). Internal header.
#pragma once

#include <cstdint>

namespace blockscope::kernels {

// Quantizes n values (n a multiple of 32 is not required: the last group is padded with zero codes up to
// the next multiple of 32, which `codes` must have room for). Per group: scale = max|v| / 127, code =
// nearest integer to v / scale (ties away from zero), scale 0 and codes 0 for an all-zero group.
// codes: ceil(n / 32) * 32 int8; scales: ceil(n / 32).
void q8_quantize_row(int8_t* codes, float* scales, const float* v, int64_t n);
// The same for an activation row, with codes widened to int16 (what the SIMD128 dot product reads).
void q8_quantize_row_i16(int16_t* codes, float* scales, const float* v, int64_t n);

// out[o] = sum_g (float(sum_k wq[o][g,k] * xq[g,k]) * (ws[o][g] * xs[g])) + bias[o], the group sums taken in
// order g = 0, 1, ... (bias may be null). wq (OC, G * 32) codes and ws (OC, G) scales of the weight; xq
// (G * 32) and xs (G) of the input row (q8_quantize_row_i16).
using Q8GemvFn = void (*)(float* out, const int16_t* xq, const float* xs, const int8_t* wq, const float* ws,
                          const float* bias, int64_t G, int64_t OC);
void q8_gemv__generic(float* out, const int16_t* xq, const float* xs, const int8_t* wq, const float* ws,
                      const float* bias, int64_t G, int64_t OC);
#ifdef __wasm_simd128__
void q8_gemv__simd128(float* out, const int16_t* xq, const float* xs, const int8_t* wq, const float* ws,
                      const float* bias, int64_t G, int64_t OC);
#endif

// Dequantizes rows [r0, r0 + nr) of a (rows, G * 32)-code matrix into panel (nr, C): C values of each.
void q8_dequantize_rows(float* panel, const int8_t* wq, const float* ws, int64_t r0, int64_t nr, int64_t G,
                        int64_t C);

// The 4x8 float32 GEMM's panel (kernels.hpp, f32_gemm_pack_8) made straight from int8 rows: packed (1 + C, 8),
// row 0 = bias[0..nc) (zeros when bias is null), row 1 + k = the dequantized weight[0..nc)[k], float(code) *
// scale exactly as q8_dequantize_rows computes it; columns nc..7 zero. wq, ws and bias point at the panel's
// first row (wq rows G * 32 codes apart, ws rows G scales apart); nc <= 8.
using Q8PackFn = void (*)(float* packed, const int8_t* wq, const float* ws, const float* bias, int64_t nc,
                          int64_t G, int64_t C);
void q8_gemm_pack_8__generic(float* packed, const int8_t* wq, const float* ws, const float* bias, int64_t nc,
                             int64_t G, int64_t C);
#ifdef __wasm_simd128__
void q8_gemm_pack_8__simd128(float* packed, const int8_t* wq, const float* ws, const float* bias, int64_t nc,
                             int64_t G, int64_t C);
#endif

// Output columns computed per dequantized panel in q8_linear, and the input rows from which it uses panels.
inline constexpr int64_t kQ8PanelRows = 64;
inline constexpr int64_t kQ8GemvBelowN = 4;

// out (N, OC) = inp (N, C) @ W^T + bias for W given as codes wq (OC, G * 32) and scales ws (OC, G),
// G = ceil(C / 32). N < 4: the gemv per row, on the quantized input row. N >= 4 in SIMD128 builds: 8 rows of W at a
// time dequantized straight into the 4x8 GEMM's panel (q8_gemm_pack_8), with no float32 copy of the rows, no
// second packing pass and no copy of the outputs; elsewhere 64-row panels of W dequantized to float32, then
// linear_forward (Eigen natively). Both give the float32 GEMM's sums on q8_dequantize_rows's values. Scratch:
// thread-local buffers reused across calls.
void q8_linear(Q8GemvFn gemv, float* out, const float* inp, const int8_t* wq, const float* ws, const float* bias,
               int64_t N, int64_t C, int64_t OC);

}  // namespace blockscope::kernels
