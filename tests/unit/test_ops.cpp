// Tests for ops.hpp: kernels against naive scalar references, on sizes that are not multiples of any
// vector width, with outputs pre-filled with NaN so unwritten elements fail.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <vector>

#include "blockscope/ops.hpp"
#include "blockscope/rng.hpp"
#include "fast_math.hpp"  // core/src: the vectorizable exp and tanh behind GELU
#include "support/kernel_check.hpp"

using namespace blockscope;
using blockscope::kernel_check::kNaN;
using blockscope::kernel_check::random_vec;

TEST_CASE("ops: linear_forward equals a naive triple loop for odd sizes", "[ops]") {
  for (const auto& [N, C, OC] : {std::tuple{1, 1, 1}, {3, 7, 5}, {17, 33, 9}, {5, 64, 130}}) {
    const auto x = random_vec(N * C, 1), w = random_vec(OC * C, 2), b = random_vec(OC, 3);
    std::vector<float> y(N * OC, kNaN);
    linear_forward(y.data(), x.data(), w.data(), b.data(), N, C, OC);
    for (int n = 0; n < N; ++n)
      for (int o = 0; o < OC; ++o) {
        double acc = b[o];
        for (int c = 0; c < C; ++c) acc += static_cast<double>(x[n * C + c]) * w[o * C + c];
        REQUIRE(y[n * OC + o] == Approx(acc).margin(1e-4));
      }
  }
}

TEST_CASE("ops: softmax rows sum to one and survive large logits", "[ops]") {
  std::vector<float> x = {1000.f, 1001.f, 1002.f, -5.f, 0.f, 5.f};
  softmax_rows(x.data(), 2, 3);
  CHECK(x[0] + x[1] + x[2] == Approx(1.0f));
  CHECK(x[2] == Approx(0.66524f).epsilon(1e-4));
  CHECK(x[3] + x[4] + x[5] == Approx(1.0f));
}

TEST_CASE("ops: softmax of rows holding NaN or infinity gives NaN, as torch.softmax does, without UB", "[ops]") {
  // Huge but finite weights make attention scores overflow to inf, and inf - inf is NaN: the exp must pass the
  // NaN through instead of converting it to an integer (undefined behaviour; found by fuzz_model_load).
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> x = {inf, 1.f, inf, nan, 0.f, 1.f, -inf, 0.f, 0.f};
  softmax_rows(x.data(), 3, 3);
  for (int i = 0; i < 6; ++i) CHECK(std::isnan(x[i]));
  CHECK(x[6] < 1e-30f);
  CHECK(x[7] == Approx(0.5f));
  CHECK(std::isnan(detail::exp_f32(nan)));
  CHECK(detail::exp_f32(-inf) < 1e-37f);
  CHECK(detail::exp_f32(inf) > 1e38f);
}

TEST_CASE("ops: attention over a cached prefix equals the last rows of a full pass", "[ops]") {
  // KV-cache decoding computes only the last T queries against S cached keys; it must agree with the
  // corresponding rows of the full causal pass.
  const int B = 2, S = 7, C = 12, NH = 3, T = 2, rows = 9;
  const auto q = random_vec(B * S * C, 4), k = random_vec(B * S * C, 5), v = random_vec(B * S * C, 6);
  std::vector<float> out_full(B * S * C, kNaN), att_full(B * NH * S * S, kNaN);
  attention_forward(out_full.data(), att_full.data(), q.data(), k.data(), v.data(), B, S, S, S, C, NH, true);

  std::vector<float> qt(B * T * C), kc(B * rows * C, kNaN), vc(B * rows * C, kNaN);
  for (int b = 0; b < B; ++b) {
    for (int t = 0; t < T; ++t)
      for (int c = 0; c < C; ++c) qt[(b * T + t) * C + c] = q[(b * S + S - T + t) * C + c];
    for (int s = 0; s < S; ++s)
      for (int c = 0; c < C; ++c) {
        kc[(b * rows + s) * C + c] = k[(b * S + s) * C + c];
        vc[(b * rows + s) * C + c] = v[(b * S + s) * C + c];
      }
  }
  std::vector<float> out(B * T * C, kNaN), att(B * NH * T * S, kNaN);
  attention_forward(out.data(), att.data(), qt.data(), kc.data(), vc.data(), B, T, S, rows, C, NH, true);
  for (int b = 0; b < B; ++b)
    for (int t = 0; t < T; ++t)
      for (int c = 0; c < C; ++c)
        REQUIRE(out[(b * T + t) * C + c] == Approx(out_full[(b * S + S - T + t) * C + c]).margin(1e-5));
}

TEST_CASE("ops: causal attention weights are zero above the diagonal and rows sum to one", "[ops]") {
  const int B = 1, T = 5, C = 4, NH = 2;
  const auto q = random_vec(T * C, 7), k = random_vec(T * C, 8), v = random_vec(T * C, 9);
  std::vector<float> out(T * C, kNaN), att(NH * T * T, kNaN);
  attention_forward(out.data(), att.data(), q.data(), k.data(), v.data(), B, T, T, T, C, NH, true);
  for (int h = 0; h < NH; ++h)
    for (int t = 0; t < T; ++t) {
      double sum = 0;
      for (int s = 0; s < T; ++s) {
        const float w = att[(h * T + t) * T + s];
        if (s > t) REQUIRE(w == 0.0f);
        sum += w;
      }
      REQUIRE(sum == Approx(1.0).margin(1e-6));
    }
}

TEST_CASE("ops: row statistics are two-pass stable far from zero", "[ops]") {
  // E[x^2] - E[x]^2 in float32 loses everything here; the two-pass double version must not.
  std::vector<float> x(16);
  for (int i = 0; i < 16; ++i) x[i] = 10000.0f + (i % 2 ? 0.01f : -0.01f);
  float mean = 0, var = 0;
  row_mean_var(&mean, &var, x.data(), 1, 16);
  // Reference in double from the float32 inputs (10000 +- 0.01 is not exact in float32).
  double m = 0, v = 0;
  for (const float xi : x) m += xi / 16.0;
  for (const float xi : x) v += (xi - m) * (xi - m) / 16.0;
  CHECK(v > 5e-5);
  CHECK(mean == Approx(m).epsilon(1e-7));
  CHECK(var == Approx(v).epsilon(1e-5));
}


TEST_CASE("the branch-free exp and tanh stay within 3 float ulps of double precision", "[ops]") {
  double worst_tanh = 0.0, worst_exp = 0.0;
  for (float x = -20.0f; x <= 20.0f; x += 1.0e-3f) {
    const double t = std::tanh(static_cast<double>(x));
    const double err = std::fabs(detail::tanh_f32(x) - t);
    worst_tanh = std::max(worst_tanh, err / std::max(std::fabs(t), 1e-30));
    REQUIRE(err <= 1e-7);
  }
  for (float x = -87.0f; x <= 88.0f; x += 1.0e-2f) {
    const double e = std::exp(static_cast<double>(x));
    worst_exp = std::max(worst_exp, std::fabs(detail::exp_f32(x) - e) / e);
  }
  const double ulp = std::ldexp(1.0, -23);
  CHECK(worst_tanh <= 3 * ulp);
  CHECK(worst_exp <= 3 * ulp);
  CHECK(detail::tanh_f32(0.0f) == 0.0f);
  CHECK(detail::tanh_f32(100.0f) == 1.0f);
  CHECK(detail::tanh_f32(-100.0f) == -1.0f);
  CHECK(detail::exp_f32(0.0f) == 1.0f);
}
