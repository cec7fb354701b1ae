// The loop around the int8 kernels: out = inp @ W^T + bias with W in Q8 form. Decoding rows take the int8
// GEMV on a quantized copy of the row; longer inputs run the float32 GEMM on W dequantized a panel at a time
// (in cache), so prefill costs about what float32 costs.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "blockscope/ops.hpp"
#include "kernels/kernels.hpp"
#include "kernels/q8.hpp"

namespace blockscope::kernels {

namespace {
template <typename T>
T* scratch(std::vector<T>& buf, int64_t n) {
  if (buf.size() < static_cast<size_t>(n)) buf.resize(static_cast<size_t>(n));
  return buf.data();
}
}  // namespace

void q8_linear(Q8GemvFn gemv, float* out, const float* inp, const int8_t* wq, const float* ws, const float* bias,
               int64_t N, int64_t C, int64_t OC) {
  const int64_t G = (C + 31) / 32;
  if (N < kQ8GemvBelowN) {
    thread_local std::vector<int16_t> xq_buf;
    thread_local std::vector<float> xs_buf;
    int16_t* xq = scratch(xq_buf, G * 32);
    float* xs = scratch(xs_buf, G);
    for (int64_t n = 0; n < N; ++n) {
      q8_quantize_row_i16(xq, xs, inp + n * C, C);
      gemv(out + n * OC, xq, xs, wq, ws, bias, G, OC);
    }
    return;
  }
#ifdef __wasm_simd128__
  // f32_linear's loop on the SIMD128 kernels, with the int8 panel packing: one 8-row panel at a time, dequantized
  // into the GEMM's packed layout and shared by all 4-row blocks of inp (the same panel values, so the same sums).
  thread_local std::vector<float> packed_buf;
  float* packed = scratch(packed_buf, (1 + C) * kGemmNR + 16);
  packed += ((64 - reinterpret_cast<uintptr_t>(packed) % 64) % 64) / sizeof(float);  // 32-byte rows in one line
  for (int64_t j = 0; j < OC; j += kGemmNR) {
    const int64_t nc = std::min(kGemmNR, OC - j);
    q8_gemm_pack_8__simd128(packed, wq + j * G * 32, ws + j * G, bias ? bias + j : nullptr, nc, G, C);
    for (int64_t i = 0; i < N; i += kGemmMR)
      f32_gemm_4x8__simd128(out + i * OC + j, OC, inp + i * C, C, packed, std::min(kGemmMR, N - i), nc, C);
  }
#else
  thread_local std::vector<float> panel_buf, out_buf;
  float* panel = scratch(panel_buf, kQ8PanelRows * C);
  float* tmp = scratch(out_buf, N * kQ8PanelRows);
  for (int64_t j = 0; j < OC; j += kQ8PanelRows) {
    const int64_t nr = std::min(kQ8PanelRows, OC - j);
    q8_dequantize_rows(panel, wq, ws, j, nr, G, C);
    linear_forward(tmp, inp, panel, bias ? bias + j : nullptr, N, C, nr);
    for (int64_t n = 0; n < N; ++n) std::copy(tmp + n * nr, tmp + (n + 1) * nr, out + n * OC + j);
  }
#endif
}

}  // namespace blockscope::kernels
