// Backward of f32_linear: dinp += dout @ weight, dweight += dout^T @ inp, dbias += column sums of dout, as
// one cache-blocked loop nest around the accumulating 4x8 GEMM, plus the transpose and column-sum kernels.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "kernels/kernels.hpp"

#include "kernels/simd128.hpp"

namespace blockscope::kernels {

void f32_transpose_4x4__generic(float* dst, int64_t dst_stride, const float* src, int64_t src_stride,
                                int64_t rows, int64_t cols) {
  for (int64_t r0 = 0; r0 < rows; r0 += 4)  // four source rows at a time: each dst row gets 4 adjacent floats
    for (int64_t c = 0; c < cols; ++c)
      for (int64_t r = r0; r < std::min(r0 + 4, rows); ++r) dst[c * dst_stride + r] = src[r * src_stride + c];
}

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
void f32_transpose_4x4__simd128(float* dst, int64_t dst_stride, const float* src, int64_t src_stride,
                                int64_t rows, int64_t cols) {
  using namespace simd128;
  const int64_t rows4 = rows & ~(kW - 1), cols4 = cols & ~(kW - 1);
  for (int64_t r = 0; r < rows4; r += kW) {
    const float* s = src + r * src_stride;
    int64_t c = 0;
    for (; c < cols4; c += kW) {
      vf r0 = load(s + c), r1 = load(s + src_stride + c);
      vf r2 = load(s + 2 * src_stride + c), r3 = load(s + 3 * src_stride + c);
      transpose4(r0, r1, r2, r3);
      float* d = dst + c * dst_stride + r;
      store(d, r0), store(d + dst_stride, r1), store(d + 2 * dst_stride, r2), store(d + 3 * dst_stride, r3);
    }
    for (; c < cols; ++c)
      for (int64_t i = 0; i < kW; ++i) dst[c * dst_stride + r + i] = s[i * src_stride + c];
  }
  for (int64_t r = rows4; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) dst[c * dst_stride + r] = src[r * src_stride + c];
}

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

// Blocking: kc = 256 keeps a 256 x 8 panel (8 KB) in L1 and mc = 128 a 128 x 256 block of A (128 KB) in L2.
const LinearBackwardKernels kLinearBackwardGeneric = {f32_pack_rows_8__generic, f32_gemm_acc_4x8__generic,
                                                      f32_transpose_4x4__generic, f32_colsum_acc_16__generic,
                                                      128, 256};
#ifdef __wasm_simd128__
const LinearBackwardKernels kLinearBackwardSimd128 = {f32_pack_rows_8__simd128, f32_gemm_acc_4x8__simd128,
                                                      f32_transpose_4x4__simd128, f32_colsum_acc_16__simd128,
                                                      128, 256};
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

// c (M, Nc) += A @ b (K, Nc), row-major with row strides ldc, lda, ldb. A (M, K) is a itself, or, when
// a_transposed, a holds A^T (K, M) and each mc x kc block of A is transposed into scratch first.
// Per kc block of the reduction: pack all 8-column panels of b, then per mc block of rows, every panel
// against every 4-row tile of that block.
void gemm_acc(const LinearBackwardKernels& k, float* c, int64_t ldc, const float* a, int64_t lda,
              bool a_transposed, const float* b, int64_t ldb, int64_t M, int64_t Nc, int64_t K) {
  thread_local std::vector<float> panel_buf, a_buf;
  const int64_t kc = std::min(std::max<int64_t>(1, k.kc), K), mc = std::min(std::max<int64_t>(1, k.mc), M);
  const int64_t panels = (Nc + kGemmNR - 1) / kGemmNR;
  float* packed = aligned_scratch(panel_buf, panels * kc * kGemmNR);
  float* a_block = a_transposed ? aligned_scratch(a_buf, mc * kc) : nullptr;
  for (int64_t k0 = 0; k0 < K; k0 += kc) {
    const int64_t kn = std::min(kc, K - k0), panel_size = kn * kGemmNR;
    for (int64_t p = 0; p < panels; ++p)
      k.pack_rows(packed + p * panel_size, b + k0 * ldb + p * kGemmNR, ldb,
                  std::min(kGemmNR, Nc - p * kGemmNR), kn);
    for (int64_t m0 = 0; m0 < M; m0 += mc) {
      const int64_t mn = std::min(mc, M - m0);
      const float* ab = a + m0 * lda + k0;  // A[m0][k0], rows lda apart
      int64_t a_stride = lda;
      if (a_transposed) {
        k.transpose(a_block, kn, a + k0 * lda + m0, lda, kn, mn);
        ab = a_block, a_stride = kn;
      }
      for (int64_t p = 0; p < panels; ++p) {
        const int64_t nc = std::min(kGemmNR, Nc - p * kGemmNR);
        for (int64_t i = 0; i < mn; i += kGemmMR)
          k.gemm_acc(c + (m0 + i) * ldc + p * kGemmNR, ldc, ab + i * a_stride, a_stride,
                     packed + p * panel_size, std::min(kGemmMR, mn - i), nc, kn);
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
  // dweight (OC, C) += dout^T @ inp: A = dout^T, transposed block by block, B = inp as stored.
  if (dweight && C > 0) gemm_acc(k, dweight, C, dout, OC, true, inp, C, OC, C, N);
  if (dbias) k.colsum_acc(dbias, dout, N, OC);
}

}  // namespace blockscope::kernels
