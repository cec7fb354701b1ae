// Internal header: branch-free float32 exp and tanh built only from +, *, /, conversions and bit operations, so
// that the compiler vectorizes the loops calling them (SSE/AVX natively, SIMD128 in wasm) and every platform
// computes the same bits (libm's tanhf differs between glibc and Emscripten's libc, and is a scalar call that
// made GELU the largest single cost of a training step). Coefficients are Cephes' expf and tanhf (S. Moshier):
// within 2 float ulps of the true value; PyTorch's own vectorized tanh is of the same kind.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace blockscope::detail {

// e^x for x in [-87.3, 88.7] (clamped outside); NaN stays NaN.
inline float exp_f32(float x_in) {
  // The clamp is written so that NaN comes out as -87.3 (std::max(a, b) returns a when b is NaN): the float ->
  // int conversion below must never see NaN (undefined behaviour); the NaN is restored at the end.
  const float x = std::min(88.7f, std::max(-87.3f, x_in));
  // round(x / ln 2) by truncation towards zero (SSE2 and SIMD128 both vectorize it; floor is SSE4.1).
  const float t = x * 1.44269504088896341f;
  const auto ni = static_cast<int32_t>(t + (t < 0.0f ? -0.5f : 0.5f));
  const auto n = static_cast<float>(ni);
  const float r = (x - n * 0.693359375f) + n * 2.12194440e-4f;  // x - n ln 2 in two parts (Cody-Waite)
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const float e = p * (r * r) + r + 1.0f;  // e^r on [-ln2/2, ln2/2]
  const auto bits = static_cast<uint32_t>(ni + 127) << 23;  // 2^n
  const float y = e * __builtin_bit_cast(float, bits);  // std::bit_cast is missing from Emscripten 3.1.6's libc++
  return std::isnan(x_in) ? x_in : y;  // (written with isnan, GCC if-converts and vectorizes the callers' loops)
}

// tanh(x): an odd polynomial below |x| = 0.625, 1 - 2 / (e^{2|x|} + 1) above (with the sign of x).
inline float tanh_f32(float x) {
  const float z = x * x;
  float p = -5.70498872745e-3f;
  p = p * z + 2.06390887954e-2f;
  p = p * z - 5.37397155531e-2f;
  p = p * z + 1.33314422036e-1f;
  p = p * z - 3.33332819422e-1f;
  const float small = p * z * x + x;
  const float a = std::fabs(x);
  const float large = 1.0f - 2.0f / (exp_f32(2.0f * a) + 1.0f);
  return a < 0.625f ? small : (x < 0.0f ? -large : large);
}

}  // namespace blockscope::detail
