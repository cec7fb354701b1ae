// The one place the core chooses kernels by instruction set (ggml's pattern): ops.cpp, ops_backward.cpp and
// quantized.cpp ask kernels::active() for the kernel of each operation, and only kernels/ knows which ISA the
// build targets. Native builds run the matrix products through Eigen, whose code uses the CPU's full vector width;
// wasm builds with -msimd128 get the hand-written SIMD128 kernels (and link no Eigen product), and the simd-relaxed
// flavour (BLOCKSCOPE_WASM_RELAXED) the same with its multiply-add kernels from the relaxed-SIMD module.
#pragma once

#include <cstdint>

#include "kernels/kernels.hpp"
#include "kernels/q8.hpp"

namespace blockscope::kernels {

// max(r[0..n)), n >= 1. A NaN anywhere gives NaN or a number depending on its position, as std::max_element;
// softmax's row is NaN either way.
using RowMaxFn = float (*)(const float* r, int64_t n);
float f32_row_max__generic(const float* r, int64_t n);
#ifdef __wasm_simd128__
float f32_row_max__simd128(const float* r, int64_t n);
#endif

// linear_forward and linear_backward as whole operations (ops.hpp contracts): the packed-kernel loop nests
// (f32_linear / f32_linear_backward) on this build's kernels, or Eigen's products (f32_linear_eigen.cpp).
using LinearFn = void (*)(float* out, const float* inp, const float* weight, const float* bias, int64_t N, int64_t C,
                          int64_t OC);
using LinearBackwardFn = void (*)(float* dinp, float* dweight, float* dbias, const float* dout, const float* inp,
                                  const float* weight, int64_t N, int64_t C, int64_t OC);
void f32_linear__eigen(float* out, const float* inp, const float* weight, const float* bias, int64_t N, int64_t C,
                       int64_t OC);
void f32_linear_backward__eigen(float* dinp, float* dweight, float* dbias, const float* dout, const float* inp,
                                const float* weight, int64_t N, int64_t C, int64_t OC);
// The loop nests on one kernel set, as a LinearFn / LinearBackwardFn: f32_linear_on<kLinearSimd128>, ...
template <const LinearKernels& K>
void f32_linear_on(float* out, const float* inp, const float* weight, const float* bias, int64_t N, int64_t C,
                   int64_t OC) {
  f32_linear(K, out, inp, weight, bias, N, C, OC);
}
template <const LinearBackwardKernels& K>
void f32_linear_backward_on(float* dinp, float* dweight, float* dbias, const float* dout, const float* inp,
                            const float* weight, int64_t N, int64_t C, int64_t OC) {
  f32_linear_backward(K, dinp, dweight, dbias, dout, inp, weight, N, C, OC);
}

struct Dispatch {
  const char* isa;                   // "relaxed-simd", "simd128" or "generic"
  LinearFn linear;                   // linear_forward
  LinearBackwardFn linear_backward;  // linear_backward
  // Attention for a few query rows without dropout (decoding), keys and values read in place; null: the blocked
  // path with per-head copies (native: Eigen's products are faster there, measured at context 1000).
  AttentionScoresFn attention_scores;
  AttentionWeightedSumFn attention_weighted_sum;
  Q8GemvFn q8_gemv;
  RowMaxFn row_max;
};

// The kernels this build runs.
const Dispatch& active();

}  // namespace blockscope::kernels
