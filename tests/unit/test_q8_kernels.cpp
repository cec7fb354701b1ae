// Tests for the int8 kernels (core/src/kernels/q8.hpp): quantization against its definition and error bound,
// the int8 GEMV against a double-precision reference on the same codes, q8_linear against the float32 product
// within a bound derived from the scales, and — when compiled with -msimd128 (tests/wasm_kernels/) — the
// SIMD128 GEMV and panel packing bit-identical to their generic twins, and the SIMD128 prefill path (int8 panels
// packed for the float32 GEMM) equal to the float32 linear kernel on the dequantized weight. Sizes are not multiples of 32 or 4; outputs start as NaN.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "kernels/kernels.hpp"
#include "kernels/q8.hpp"
#include "support/kernel_check.hpp"

using namespace blockscope;
using namespace blockscope::kernels;
using namespace blockscope::kernel_check;

namespace {
const int64_t kCs[] = {1, 5, 31, 32, 33, 64, 100, 768};
const int64_t kOCs[] = {1, 3, 4, 5, 9, 64, 67};

int64_t groups(int64_t C) { return (C + 31) / 32; }

// A weight (OC, C) quantized row by row.
struct Q8 {
  int64_t OC, C, G;
  std::vector<float> w;
  std::vector<int8_t> q;
  std::vector<float> s;
  Q8(int64_t oc, int64_t c, uint64_t seed)
      : OC(oc), C(c), G(groups(c)), w(random_vec(oc * c, seed)), q(static_cast<size_t>(oc * G * 32), 99),
        s(static_cast<size_t>(oc * G), kNaN) {
    for (int64_t o = 0; o < OC; ++o) q8_quantize_row(q.data() + o * G * 32, s.data() + o * G, w.data() + o * C, C);
  }
};
}  // namespace

TEST_CASE("q8 quantization: scale max|v|/127, codes within [-127, 127], error at most half a step", "[q8]") {
  for (int64_t C : kCs) {
    INFO("C=" << C);
    const Q8 m(3, C, 7 + C);
    for (int64_t o = 0; o < m.OC; ++o)
      for (int64_t g = 0; g < m.G; ++g) {
        const float scale = m.s[o * m.G + g];
        float amax = 0.0f;
        for (int64_t k = g * 32; k < std::min(C, g * 32 + 32); ++k) amax = std::max(amax, std::fabs(m.w[o * C + k]));
        REQUIRE(scale == amax / 127.0f);
        for (int64_t k = g * 32; k < g * 32 + 32; ++k) {
          const int8_t code = m.q[o * m.G * 32 + k];
          REQUIRE(code >= -127);
          if (k >= C) {
            REQUIRE(code == 0);  // padding
            continue;
          }
          const float v = m.w[o * C + k];
          REQUIRE(std::fabs(v - code * scale) <= 0.5f * scale * (1.0f + 1e-5f));
          REQUIRE(code == static_cast<int8_t>(std::nearbyint(v / scale)));
        }
      }
  }
}

TEST_CASE("q8 quantization of an all-zero group gives scale 0 and zero codes", "[q8]") {
  std::vector<float> v(40, 0.0f);
  v[35] = -2.0f;
  std::vector<int8_t> q(64, 5);
  std::vector<float> s(2, kNaN);
  q8_quantize_row(q.data(), s.data(), v.data(), 40);
  REQUIRE(s[0] == 0.0f);
  for (int k = 0; k < 32; ++k) REQUIRE(q[k] == 0);
  REQUIRE(s[1] == 2.0f / 127.0f);
  REQUIRE(q[35] == -127);
}

TEST_CASE("q8 quantization of a group holding inf or NaN gives a NaN scale, so the value is not hidden", "[q8]") {
  for (const float bad : {kNaN, std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity()}) {
    std::vector<float> v(70, 1.0f);
    v[40] = bad;  // group 1 of 3
    std::vector<int8_t> q(96, 5);
    std::vector<int16_t> q16(96, 5);
    std::vector<float> s(3, 0.0f), s16(3, 0.0f);
    q8_quantize_row(q.data(), s.data(), v.data(), 70);
    q8_quantize_row_i16(q16.data(), s16.data(), v.data(), 70);
    CHECK(s[0] == 1.0f / 127.0f);
    CHECK(std::isnan(s[1]));
    CHECK(std::isnan(s16[1]));
    CHECK(s[2] == 1.0f / 127.0f);
    for (int k = 32; k < 64; ++k) {
      REQUIRE(q[k] == 0);  // defined codes, no float->int cast of inf/NaN
      REQUIRE(q16[k] == 0);
    }
    CHECK(q[0] == 127);
  }
}

TEST_CASE("q8 gemv sums each group exactly and scales it by w_scale * x_scale", "[q8]") {
  for (int64_t C : kCs)
    for (int64_t OC : kOCs) {
      INFO("C=" << C << " OC=" << OC);
      const Q8 m(OC, C, 11 + C + OC);
      const std::vector<float> x = random_vec(C, 3 + C), bias = random_vec(OC, 5);
      std::vector<int16_t> xq(static_cast<size_t>(m.G * 32));
      std::vector<float> xs(static_cast<size_t>(m.G));
      q8_quantize_row_i16(xq.data(), xs.data(), x.data(), C);
      std::vector<float> out(static_cast<size_t>(OC + 3), kNaN);
      q8_gemv__generic(out.data(), xq.data(), xs.data(), m.q.data(), m.s.data(), bias.data(), m.G, OC);
      for (int64_t o = 0; o < OC; ++o) {
        double want = bias[o];
        for (int64_t k = 0; k < C; ++k)
          want += static_cast<double>(m.q[o * m.G * 32 + k]) * m.s[o * m.G + k / 32] * xq[k] * xs[k / 32];
        REQUIRE(std::fabs(out[o] - want) <= 1e-5 * (1.0 + std::fabs(want)) * m.G);
      }
      for (int64_t i = OC; i < OC + 3; ++i) REQUIRE(std::isnan(out[i]));
    }
}

TEST_CASE("q8 linear is within the quantization bound of the float32 product", "[q8]") {
  // |y_q - y| <= sum_k |x_k| |w_k - w^_k| + |w^_k| |x_k - x^_k| <= sum_k |x_k| s_w/2 + |w^_k| s_x/2 (+ rounding):
  // the bound is computed from the scales each element actually got.
  for (int64_t N : {1, 2, 4, 7, 70})
    for (int64_t C : {5, 33, 100})
      for (int64_t OC : {1, 9, 67, 130}) {
        INFO("N=" << N << " C=" << C << " OC=" << OC);
        const Q8 m(OC, C, 13 + C * OC);
        const std::vector<float> x = random_vec(N * C, 17 + N), bias = random_vec(OC, 19);
        std::vector<float> out(static_cast<size_t>(N * OC + 2), kNaN);
#ifdef __wasm_simd128__
        q8_linear(q8_gemv__simd128, out.data(), x.data(), m.q.data(), m.s.data(), bias.data(), N, C, OC);
#else
        q8_linear(q8_gemv__generic, out.data(), x.data(), m.q.data(), m.s.data(), bias.data(), N, C, OC);
#endif
        std::vector<float> xs(static_cast<size_t>(m.G));
        std::vector<int16_t> xq(static_cast<size_t>(m.G * 32));
        for (int64_t n = 0; n < N; ++n) {
          q8_quantize_row_i16(xq.data(), xs.data(), x.data() + n * C, C);
          for (int64_t o = 0; o < OC; ++o) {
            double exact = bias[o], bound = 1e-5 * (1 + C);
            for (int64_t k = 0; k < C; ++k) {
              const double xk = x[n * C + k], wq = m.q[o * m.G * 32 + k] * double{m.s[o * m.G + k / 32]};
              exact += xk * m.w[o * C + k];
              bound += std::fabs(xk) * m.s[o * m.G + k / 32] / 2 * 1.0001;
              if (N < kQ8GemvBelowN) bound += std::fabs(wq) * xs[k / 32] / 2 * 1.0001;  // x quantized too
            }
            REQUIRE(std::fabs(out[n * OC + o] - exact) <= bound);
          }
        }
        REQUIRE(std::isnan(out[N * OC]));
        REQUIRE(std::isnan(out[N * OC + 1]));
      }
}

namespace {
// The panel f32_gemm_pack_8 makes from the weight's rows [r0, r0 + nc) dequantized by q8_dequantize_rows.
std::vector<float> dequantized_panel(const Q8& m, const float* bias, int64_t r0, int64_t nc) {
  std::vector<float> rows(static_cast<size_t>(nc * m.C)), panel(static_cast<size_t>((1 + m.C) * kGemmNR), kNaN);
  q8_dequantize_rows(rows.data(), m.q.data(), m.s.data(), r0, nc, m.G, m.C);
  f32_gemm_pack_8__generic(panel.data(), rows.data(), bias, nc, m.C);
  return panel;
}
}  // namespace

TEST_CASE("q8_gemm_pack_8__generic packs what q8_dequantize_rows + f32_gemm_pack_8 pack, bit for bit", "[q8]") {
  for (int64_t C : kCs)
    for (int64_t nc = 1; nc <= kGemmNR; ++nc)
      for (bool with_bias : {false, true}) {
        INFO("C=" << C << " nc=" << nc << " bias=" << with_bias);
        const Q8 m(11, C, 37 + C + nc);
        const std::vector<float> bias = random_vec(11, 41);
        const float* bp = with_bias ? bias.data() + 2 : nullptr;
        const std::vector<float> want = dequantized_panel(m, bp, 2, nc);
        std::vector<float> got(want.size() + 2, kNaN);
        q8_gemm_pack_8__generic(got.data(), m.q.data() + 2 * m.G * 32, m.s.data() + 2 * m.G, bp, nc, m.G, C);
        REQUIRE(std::memcmp(got.data(), want.data(), want.size() * sizeof(float)) == 0);
        REQUIRE(std::isnan(got[want.size()]));
      }
}

#ifdef __wasm_simd128__
TEST_CASE("q8_gemm_pack_8__simd128 is bit-identical to q8_gemm_pack_8__generic", "[q8][simd128]") {
  for (int64_t C : kCs)
    for (int64_t nc = 1; nc <= kGemmNR; ++nc)
      for (bool with_bias : {false, true}) {
        INFO("C=" << C << " nc=" << nc << " bias=" << with_bias);
        const Q8 m(nc, C, 43 + C + nc);
        const std::vector<float> bias = random_vec(nc, 47);
        const float* bp = with_bias ? bias.data() : nullptr;
        const size_t n = static_cast<size_t>((1 + C) * kGemmNR);
        std::vector<float> a(n + 2, kNaN), b = a;
        q8_gemm_pack_8__generic(a.data(), m.q.data(), m.s.data(), bp, nc, m.G, C);
        q8_gemm_pack_8__simd128(b.data(), m.q.data(), m.s.data(), bp, nc, m.G, C);
        REQUIRE(std::memcmp(a.data(), b.data(), n * sizeof(float)) == 0);
        REQUIRE(std::isnan(b[n]));
      }
}

TEST_CASE("q8_linear from 4 rows on equals the float32 linear kernel on the dequantized weight", "[q8][simd128]") {
  for (int64_t N : {4, 7, 64})
    for (int64_t C : {5, 33, 768})
      for (int64_t OC : {1, 9, 67}) {
        INFO("N=" << N << " C=" << C << " OC=" << OC);
        const Q8 m(OC, C, 53 + C * OC);
        const std::vector<float> x = random_vec(N * C, 59 + N), bias = random_vec(OC, 61);
        std::vector<float> w(static_cast<size_t>(OC * C));
        q8_dequantize_rows(w.data(), m.q.data(), m.s.data(), 0, OC, m.G, C);
        std::vector<float> got(static_cast<size_t>(N * OC + 2), kNaN), want = got;
        q8_linear(q8_gemv__simd128, got.data(), x.data(), m.q.data(), m.s.data(), bias.data(), N, C, OC);
        f32_linear(kLinearSimd128, want.data(), x.data(), w.data(), bias.data(), N, C, OC);
        REQUIRE(std::memcmp(got.data(), want.data(), static_cast<size_t>(N * OC) * sizeof(float)) == 0);
        REQUIRE(std::isnan(got[N * OC]));
      }
}
#endif

#ifdef __wasm_simd128__
TEST_CASE("q8_gemv__simd128 is bit-identical to q8_gemv__generic", "[q8][simd128]") {
  for (int64_t C : kCs)
    for (int64_t OC : kOCs)
      for (bool with_bias : {false, true}) {
        INFO("C=" << C << " OC=" << OC << " bias=" << with_bias);
        const Q8 m(OC, C, 23 + C + OC);
        const std::vector<float> x = random_vec(C, 29 + C), bias = random_vec(OC, 31);
        std::vector<int16_t> xq(static_cast<size_t>(m.G * 32));
        std::vector<float> xs(static_cast<size_t>(m.G));
        q8_quantize_row_i16(xq.data(), xs.data(), x.data(), C);
        std::vector<float> a(static_cast<size_t>(OC + 2), kNaN), b = a;
        const float* bp = with_bias ? bias.data() : nullptr;
        q8_gemv__generic(a.data(), xq.data(), xs.data(), m.q.data(), m.s.data(), bp, m.G, OC);
        q8_gemv__simd128(b.data(), xq.data(), xs.data(), m.q.data(), m.s.data(), bp, m.G, OC);
        REQUIRE(std::memcmp(a.data(), b.data(), static_cast<size_t>(OC) * sizeof(float)) == 0);
        REQUIRE(std::isnan(b[OC]));
        REQUIRE(std::isnan(b[OC + 1]));
      }
}
#endif
