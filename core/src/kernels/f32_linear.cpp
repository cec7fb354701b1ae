// The loop nest around the micro-kernels: out = inp @ weight^T + bias by GEMV rows or by packed 8-column
// panels of weight, each panel shared by all 4-row blocks of inp. Kernel choice is the caller's.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "kernels/kernels.hpp"

namespace blockscope::kernels {

const LinearKernels kLinearGeneric = {f32_gemm_pack_8__generic, f32_gemm_4x8__generic, f32_gemv__generic,
                                      4};
#ifdef __wasm_simd128__
// GEMV below 4 rows, by bench/bench_kernels.cpp: per-row GEMV re-reads weight for every row, the packed GEMM
// pays for packing and for computing full 4-row tiles. With weight in cache (768x2304) GEMV is 1.4-2x faster
// at N = 2-3 and even up to N = 6; streamed from memory (the 768x50257 LM head) GEMM is 1.4-2x faster at
// N = 2-3 and 3x at N = 4-6. N < 4 keeps the worst case near 2x either way; N = 1 (decoding) is GEMV.
const LinearKernels kLinearSimd128 = {f32_gemm_pack_8__simd128, f32_gemm_4x8__simd128, f32_gemv__simd128,
                                      4};
#endif

namespace {
// A (1 + C, 8) panel buffer, 64-byte aligned so each 32-byte panel row sits in one cache line. Grown as
// needed and kept, so the hot path does not allocate. (The wasm build has no threads; natively each
// thread gets its own.)
float* panel_scratch(int64_t C) {
  thread_local std::vector<float> buf;
  const size_t need = static_cast<size_t>((1 + C) * kGemmNR) + 16;
  if (buf.size() < need) buf.resize(need);
  const auto addr = reinterpret_cast<uintptr_t>(buf.data());
  return buf.data() + ((64 - addr % 64) % 64) / sizeof(float);
}
}  // namespace

void f32_linear(const LinearKernels& k, float* out, const float* inp, const float* weight, const float* bias,
                int64_t N, int64_t C, int64_t OC) {
  if (N < k.gemv_below_n) {
    for (int64_t n = 0; n < N; ++n) k.gemv(out + n * OC, inp + n * C, weight, bias, C, OC);
    return;
  }
  float* packed = panel_scratch(C);
  for (int64_t j = 0; j < OC; j += kGemmNR) {
    const int64_t nc = std::min(kGemmNR, OC - j);
    k.pack(packed, weight + j * C, bias ? bias + j : nullptr, nc, C);
    for (int64_t i = 0; i < N; i += kGemmMR)
      k.gemm(out + i * OC + j, OC, inp + i * C, C, packed, std::min(kGemmMR, N - i), nc, C);
  }
}

}  // namespace blockscope::kernels
