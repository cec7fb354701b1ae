// Tests for attention_forward / attention_backward (ops.hpp) at sizes the PyTorch goldens do not reach: more
// query rows than one causal block (kAttentionRowBlock = 32), queries after cached keys (S > T), and dropout
// masks, against a naive double-precision implementation of the same formulas.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "blockscope/ops.hpp"
#include "blockscope/rng.hpp"
#include "fast_math.hpp"

using namespace blockscope;

namespace {
std::vector<float> randn(int64_t n, uint64_t seed, float scale = 1.0f) {
  Rng r(seed);
  std::vector<float> v(static_cast<size_t>(n));
  for (auto& x : v) x = scale * r.normal();
  return v;
}

// The textbook attention in double: scores, causal mask, softmax, optional dropout mask, product; and, for
// T == S, the gradients of sum(out * dout) with respect to q, k and v.
struct Naive {
  std::vector<double> out, att, dq, dk, dv;
};

Naive naive(const std::vector<float>& q, const std::vector<float>& k, const std::vector<float>& v,
            const std::vector<float>* mask, const std::vector<float>* dout, int64_t T, int64_t S, int64_t C,
            int64_t NH, bool causal) {
  const int64_t hs = C / NH, offset = S - T;
  const double scale = 1.0 / std::sqrt(static_cast<double>(hs));
  Naive r;
  r.out.assign(static_cast<size_t>(T * C), 0.0);
  r.att.assign(static_cast<size_t>(NH * T * S), 0.0);
  r.dq.assign(static_cast<size_t>(T * C), 0.0);
  r.dk.assign(r.dq.size(), 0.0);
  r.dv.assign(r.dq.size(), 0.0);
  for (int64_t h = 0; h < NH; ++h) {
    for (int64_t t = 0; t < T; ++t) {
      const int64_t visible = causal ? offset + t + 1 : S;
      std::vector<double> p(static_cast<size_t>(S), 0.0), dp(static_cast<size_t>(S), 0.0);
      double mx = -1e300, sum = 0.0;
      for (int64_t s = 0; s < visible; ++s) {
        double dot = 0.0;
        for (int64_t j = 0; j < hs; ++j) dot += double(q[t * C + h * hs + j]) * k[s * C + h * hs + j];
        p[s] = dot * scale;
        mx = std::max(mx, p[s]);
      }
      for (int64_t s = 0; s < visible; ++s) sum += (p[s] = std::exp(p[s] - mx));
      for (int64_t s = 0; s < visible; ++s) p[s] /= sum;
      for (int64_t s = 0; s < S; ++s) {
        r.att[(h * T + t) * S + s] = p[s];
        const double m = mask ? (*mask)[(h * T + t) * S + s] : 1.0;
        for (int64_t j = 0; j < hs; ++j) {
          r.out[t * C + h * hs + j] += p[s] * m * v[s * C + h * hs + j];
          if (dout) {
            const double g = (*dout)[t * C + h * hs + j];
            dp[s] += g * m * v[s * C + h * hs + j];
            r.dv[s * C + h * hs + j] += p[s] * m * g;
          }
        }
      }
      if (!dout) continue;
      double dot = 0.0;
      for (int64_t s = 0; s < S; ++s) dot += p[s] * dp[s];
      for (int64_t s = 0; s < visible; ++s) {
        const double ds = p[s] * (dp[s] - dot) * scale;
        for (int64_t j = 0; j < hs; ++j) {
          r.dq[t * C + h * hs + j] += ds * k[s * C + h * hs + j];
          r.dk[s * C + h * hs + j] += ds * q[t * C + h * hs + j];
        }
      }
    }
  }
  return r;
}

void check_close(const std::vector<float>& a, const std::vector<double>& e, const char* what) {
  REQUIRE(a.size() == e.size());
  double worst = 0.0;
  for (size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::fabs(a[i] - e[i]) / (1e-5 + 1e-5 * std::fabs(e[i])));
  INFO(what << ": worst |a - e| / (1e-5 + 1e-5 |e|) = " << worst);
  CHECK(worst <= 1.0);
}
}  // namespace

TEST_CASE("causal attention by row blocks equals the naive formula beyond one block, forward and backward",
          "[attention]") {
  const int64_t C = 8, NH = 2;
  for (const int64_t T : {31, 32, 33, 70}) {
    for (const bool dropout : {false, true}) {
      for (const bool causal : {true, false}) {
        SECTION("T=" + std::to_string(T) + (dropout ? " dropout" : "") + (causal ? " causal" : " full")) {
          const auto q = randn(T * C, 1), k = randn(T * C, 2), v = randn(T * C, 3), dout = randn(T * C, 4);
          std::vector<float> mask;
          if (dropout) {
            Rng r(5);
            mask.resize(static_cast<size_t>(NH * T * T));
            for (auto& m : mask) m = r.uniform() < 0.2f ? 0.0f : 1.25f;
          }
          const Naive ref = naive(q, k, v, dropout ? &mask : nullptr, &dout, T, T, C, NH, causal);
          std::vector<float> out(T * C, NAN), att(NH * T * T, NAN);
          attention_forward(out.data(), att.data(), q.data(), k.data(), v.data(), 1, T, T, T, C, NH, causal,
                            dropout ? mask.data() : nullptr);
          check_close(out, ref.out, "out");
          check_close(att, ref.att, "attention weights");
          std::vector<float> dq(T * C, 0.0f), dk(T * C, 0.0f), dv(T * C, 0.0f), scratch(2 * T * T);
          attention_backward(dq.data(), dk.data(), dv.data(), scratch.data(), dout.data(), q.data(), k.data(),
                             v.data(), att.data(), dropout ? mask.data() : nullptr, 1, T, C, NH, causal);
          check_close(dq, ref.dq, "dq");
          check_close(dk, ref.dk, "dk");
          check_close(dv, ref.dv, "dv");
        }
      }
    }
  }
}

TEST_CASE("queries after cached keys (S > T) attend to every cached key and their own prefix", "[attention]") {
  const int64_t C = 8, NH = 2, S = 80;
  for (const int64_t T : {1, 5, 40}) {
    SECTION("T=" + std::to_string(T)) {
      const auto q = randn(T * C, 6), k = randn(S * C, 7), v = randn(S * C, 8);
      const Naive ref = naive(q, k, v, nullptr, nullptr, T, S, C, NH, true);
      std::vector<float> out(T * C, NAN), att(NH * T * S, NAN);
      attention_forward(out.data(), att.data(), q.data(), k.data(), v.data(), 1, T, S, S, C, NH, true);
      check_close(out, ref.out, "out");
      check_close(att, ref.att, "attention weights");
    }
  }
}

TEST_CASE("a few query rows without dropout (the decoding path) equal the blocked path", "[attention]") {
  // In SIMD128 builds fewer than 8 query rows go row by row over K and V in place (kernels/f32_attention.cpp;
  // this file also runs in the wasm kernel test); 8 or more go through the blocked GEMM path. The last T rows of an 8-row call are the same queries at the same
  // positions, so both paths must agree. Head sizes 4, 21 and 64 reach every kernel tail.
  const int64_t S = 45, R = 8;
  for (const int64_t C : {8, 42, 128}) {
    const int64_t NH = 2;
    for (const int64_t T : {1, 3, 7}) {
      for (const bool causal : {true, false}) {
        SECTION("C=" + std::to_string(C) + " T=" + std::to_string(T) + (causal ? " causal" : " full")) {
          const auto q = randn(R * C, 11), k = randn(S * C, 12), v = randn(S * C, 13);
          std::vector<float> out8(R * C, NAN), att8(NH * R * S, NAN), out(T * C, NAN), att(NH * T * S, NAN);
          attention_forward(out8.data(), att8.data(), q.data(), k.data(), v.data(), 1, R, S, S, C, NH, causal);
          const float* q_last = q.data() + (R - T) * C;
          attention_forward(out.data(), att.data(), q_last, k.data(), v.data(), 1, T, S, S, C, NH, causal);
          const std::vector<double> want_out(out8.end() - T * C, out8.end());
          check_close(out, want_out, "out");
          std::vector<double> want_att;
          for (int64_t h = 0; h < NH; ++h)
            for (int64_t t = R - T; t < R; ++t)
              for (int64_t s = 0; s < S; ++s) want_att.push_back(att8[(h * R + t) * S + s]);
          check_close(att, want_att, "attention weights");
        }
      }
    }
  }
}

TEST_CASE("softmax_rows equals exp(x - max) / sum on std::max_element's maximum, bit for bit", "[attention]") {
  // SIMD128 builds take the row maximum four lanes at a time; the maximum, and so every output bit, must not change.
  for (int64_t n = 1; n <= 40; ++n)
    for (int64_t at = 0; at < n; at += 3) {
      INFO("n=" << n << " max at " << at);
      std::vector<float> x = randn(n, 100 + n);
      x[at] = 4.0f + 0.001f * static_cast<float>(n);
      if (n > 2) x[(at + 1) % n] = -0.0f;
      std::vector<float> want = x;
      const float mx = *std::max_element(want.begin(), want.end());
      float sum = 0.0f;
      for (float& v : want) v = detail::exp_f32(v - mx);
      for (const float v : want) sum += v;
      for (float& v : want) v *= 1.0f / sum;
      softmax_rows(x.data(), 1, n);
      for (int64_t j = 0; j < n; ++j) REQUIRE(x[j] == want[j]);
    }
  std::vector<float> nan_row = randn(19, 7);
  nan_row[17] = NAN;
  softmax_rows(nan_row.data(), 1, 19);
  for (const float v : nan_row) REQUIRE(std::isnan(v));
}
