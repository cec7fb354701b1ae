// The build's kernel table (see dispatch.hpp): the only translation unit outside the kernels themselves that
// asks which instruction set it is compiled for.
#include "kernels/dispatch.hpp"

#include <algorithm>

namespace blockscope::kernels {

float f32_row_max__generic(const float* r, int64_t n) { return *std::max_element(r, r + n); }

const Dispatch& active() {
#ifdef __wasm_simd128__
  // Eigen has no SIMD128 path and its auto-vectorized scalar code reaches about half of the hand-written
  // kernels' speed in wasm (GEMM) and a quarter (GEMV); see bench/bench_kernels.cpp.
  static constexpr Dispatch kSimd128 = {"simd128",
                                        &kLinearSimd128,
                                        &kLinearBackwardSimd128,
                                        f32_attention_scores__simd128,
                                        f32_attention_weighted_sum__simd128,
                                        q8_gemv__simd128,
                                        f32_row_max__simd128};
  return kSimd128;
#else
  static constexpr Dispatch kGeneric = {"generic", nullptr, nullptr, nullptr, nullptr, q8_gemv__generic,
                                        f32_row_max__generic};
  return kGeneric;
#endif
}

}  // namespace blockscope::kernels
