// The build's kernel table (see dispatch.hpp): the only translation unit outside the kernels themselves that
// asks which instruction set it is compiled for.
#include "kernels/dispatch.hpp"

#include <algorithm>

namespace blockscope::kernels {

float f32_row_max__generic(const float* r, int64_t n) { return *std::max_element(r, r + n); }

#ifdef BLOCKSCOPE_WASM_RELAXED
// The simd-relaxed flavour: the SIMD128 kernel sets with the multiply-add kernels of the relaxed-SIMD module (packing,
// column sums and cache blocking are the SIMD128 ones). The same 4x8 tile: a 5x8 one, which fused multiply-adds leave
// registers for, measured no faster (bench:kernels, 64x768x768: 61.1 against 60.7 GFLOP/s; 64x768x3072: 56.4 against
// 56.9), as the packing and the weights' trip from memory, not the multiply-adds, hold the larger products back.
const LinearKernels kLinearRelaxed = {f32_gemm_pack_8__simd128, f32_gemm_4x8__relaxed, f32_gemv__relaxed,
                                      kLinearSimd128.gemv_below_n};
const LinearBackwardKernels kLinearBackwardRelaxed = {
    .pack_a = f32_pack_a_4__simd128, .pack_at = f32_pack_at_4__simd128, .pack_b = f32_pack_b_8__simd128,
    .gemm_acc = f32_gemm_acc_4x8__relaxed, .colsum_acc = f32_colsum_acc_16__simd128,
    .mc = kLinearBackwardSimd128.mc, .kc = kLinearBackwardSimd128.kc};
#endif

const Dispatch& active() {
#if defined(BLOCKSCOPE_WASM_RELAXED)
  static constexpr Dispatch kRelaxed = {"relaxed-simd",
                                        f32_linear_on<kLinearRelaxed>,
                                        f32_linear_backward_on<kLinearBackwardRelaxed>,
                                        f32_attention_scores__relaxed,
                                        f32_attention_weighted_sum__relaxed,
                                        q8_gemv__simd128,
                                        f32_row_max__simd128};
  return kRelaxed;
#elif defined(__wasm_simd128__)
  // Eigen has no SIMD128 path and its auto-vectorized scalar code reaches about half of the hand-written
  // kernels' speed in wasm (GEMM) and a quarter (GEMV); see bench/bench_kernels.cpp.
  static constexpr Dispatch kSimd128 = {"simd128",
                                        f32_linear_on<kLinearSimd128>,
                                        f32_linear_backward_on<kLinearBackwardSimd128>,
                                        f32_attention_scores__simd128,
                                        f32_attention_weighted_sum__simd128,
                                        q8_gemv__simd128,
                                        f32_row_max__simd128};
  return kSimd128;
#else
  static constexpr Dispatch kGeneric = {"generic",          f32_linear__eigen, f32_linear_backward__eigen, nullptr,
                                        nullptr,            q8_gemv__generic,  f32_row_max__generic};
  return kGeneric;
#endif
}

}  // namespace blockscope::kernels
