// Backward of f32_linear: dinp += dout @ weight, dweight += dout^T @ inp, dbias += column sums of dout, as
// one cache-blocked loop nest around the accumulating 4x8 GEMM (f32_gemm_acc.cpp), plus the column sums.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "kernels/kernels.hpp"

#include "kernels/simd128.hpp"

namespace blockscope::kernels {

void f32_colsum_acc_16__generic(float* sums, const float* src, int64_t rows, int64_t cols) {
  for (int64_t c0 = 0; c0 < cols; c0 += 16) {
    const int64_t w = std::min<int64_t>(16, cols - c0);
    float acc[16] = {};
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = 0; j < w; ++j) acc[j] += src[r * cols + c0 + j];
    for (int64_t j = 0; j < w; ++j) sums[c0 + j] += acc[j];
  }
}

#ifdef __wasm_simd128__
void f32_colsum_acc_16__simd128(float* sums, const float* src, int64_t rows, int64_t cols) {
  using namespace simd128;
  int64_t c = 0;
  for (; c + 16 <= cols; c += 16) {  // four independent accumulators: one 64-byte line per row
    vf s0 = zero(), s1 = zero(), s2 = zero(), s3 = zero();
    for (const float* p = src + c; p < src + rows * cols; p += cols) {
      s0 = add(s0, load(p)), s1 = add(s1, load(p + 4));
      s2 = add(s2, load(p + 8)), s3 = add(s3, load(p + 12));
    }
    store(sums + c, add(load(sums + c), s0)), store(sums + c + 4, add(load(sums + c + 4), s1));
    store(sums + c + 8, add(load(sums + c + 8), s2)), store(sums + c + 12, add(load(sums + c + 12), s3));
  }
  for (; c + kW <= cols; c += kW) {
    vf s = zero();
    for (int64_t r = 0; r < rows; ++r) s = add(s, load(src + r * cols + c));
    store(sums + c, add(load(sums + c), s));
  }
  for (; c < cols; ++c) {  // same order as the generic kernel: from 0, row by row, then added
    float s = 0.0f;
    for (int64_t r = 0; r < rows; ++r) s += src[r * cols + c];
    sums[c] += s;
  }
}
#endif

// kc = 256 keeps a 256 x 8 panel of B (8 KB) in L1 and mc = 128 the packed 128 x 256 block of A (128 KB) in
// L2. Measured on a 48 KB L1 / 2 MB L2 core, kc 128-1024 and mc 64-512 were all within noise (+-5 %).
const LinearBackwardKernels kLinearBackwardGeneric = {
    .pack_a = f32_pack_a_4__generic, .pack_at = f32_pack_at_4__generic, .pack_b = f32_pack_b_8__generic,
    .gemm_acc = f32_gemm_acc_4x8__generic, .colsum_acc = f32_colsum_acc_16__generic, .mc = 128, .kc = 256};
#ifdef __wasm_simd128__
const LinearBackwardKernels kLinearBackwardSimd128 = {
    .pack_a = f32_pack_a_4__simd128, .pack_at = f32_pack_at_4__simd128, .pack_b = f32_pack_b_8__simd128,
    .gemm_acc = f32_gemm_acc_4x8__simd128, .colsum_acc = f32_colsum_acc_16__simd128, .mc = 128, .kc = 256};
#endif

namespace {
// buf grown to n floats (+ slack) and kept, so the hot path does not allocate; returns a 64-byte aligned
// start so each 32-byte panel row sits in one cache line. One buffer per use and thread.
float* aligned_scratch(std::vector<float>& buf, int64_t n) {
  const size_t need = static_cast<size_t>(n) + 16;
  if (buf.size() < need) buf.resize(need);
  const auto addr = reinterpret_cast<uintptr_t>(buf.data());
  return buf.data() + ((64 - addr % 64) % 64) / sizeof(float);
}

// c (M, Nc) += A (M, K) @ b (K, Nc), all row-major, rows ldc, lda, ldb apart. A is a itself, or, when
// a_transposed, a holds A^T (K, M). Per kc block of the reduction: pack every 8-column panel of b; then per
// mc block of rows, pack its 4-row strips of A and run every panel against every strip.
void gemm_acc(const LinearBackwardKernels& k, float* c, int64_t ldc, const float* a, int64_t lda,
              bool a_transposed, const float* b, int64_t ldb, int64_t M, int64_t Nc, int64_t K) {
  thread_local std::vector<float> b_buf, a_buf;
  const int64_t kc = std::min(std::max<int64_t>(1, k.kc), K), mc = std::min(std::max<int64_t>(1, k.mc), M);
  const int64_t panels = (Nc + kGemmNR - 1) / kGemmNR, strips = (mc + kGemmMR - 1) / kGemmMR;
  float* packed_b = aligned_scratch(b_buf, panels * kGemmNR * kc);
  float* packed_a = aligned_scratch(a_buf, strips * kGemmMR * kc);
  for (int64_t k0 = 0; k0 < K; k0 += kc) {
    const int64_t kn = std::min(kc, K - k0), panel_size = kGemmNR * kn, strip_size = kGemmMR * kn;
    for (int64_t p = 0; p < panels; ++p)
      k.pack_b(packed_b + p * panel_size, b + k0 * ldb + p * kGemmNR, ldb, std::min(kGemmNR, Nc - p * kGemmNR),
               kn);
    for (int64_t m0 = 0; m0 < M; m0 += mc) {
      const int64_t mn = std::min(mc, M - m0);
      for (int64_t i = 0; i < mn; i += kGemmMR) {
        const int64_t mr = std::min(kGemmMR, mn - i);
        float* strip = packed_a + (i / kGemmMR) * strip_size;
        if (a_transposed) k.pack_at(strip, a + k0 * lda + m0 + i, lda, mr, kn);
        else k.pack_a(strip, a + (m0 + i) * lda + k0, lda, mr, kn);
      }
      for (int64_t p = 0; p < panels; ++p) {
        const int64_t nc = std::min(kGemmNR, Nc - p * kGemmNR);
        for (int64_t i = 0; i < mn; i += kGemmMR)
          k.gemm_acc(c + (m0 + i) * ldc + p * kGemmNR, ldc, packed_a + (i / kGemmMR) * strip_size,
                     packed_b + p * panel_size, std::min(kGemmMR, mn - i), nc, kn);
      }
    }
  }
}
}  // namespace

void f32_linear_backward(const LinearBackwardKernels& k, float* dinp, float* dweight, float* dbias,
                         const float* dout, const float* inp, const float* weight, int64_t N, int64_t C,
                         int64_t OC) {
  if (N <= 0 || C < 0 || OC <= 0) return;  // every gradient gets an empty sum: nothing to add
  // dinp (N, C) += dout (N, OC) @ weight (OC, C): A = dout, B = weight as stored.
  if (dinp && C > 0) gemm_acc(k, dinp, C, dout, OC, false, weight, C, N, C, OC);
  // dweight (OC, C) += dout^T @ inp: A = dout^T, read from dout as stored, B = inp as stored.
  if (dweight && C > 0) gemm_acc(k, dweight, C, dout, OC, true, inp, C, OC, C, N);
  if (dbias) k.colsum_acc(dbias, dout, N, OC);
}

}  // namespace blockscope::kernels
