// Tests for the decoding attention kernels (kernels/f32_attention.cpp): each *_generic kernel against a
// double-precision reference, and, in the wasm kernel test (-msimd128), each *_simd128 kernel against its
// generic twin, bit for bit (they sum in the same order), and in the simd-relaxed build each *_relaxed kernel against
// its generic twin within the tolerance. Key/value rows are read strided as in a KV cache;
// head sizes and row counts are not multiples of the vector width; outputs start as NaN with NaN guards after.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kernels/kernels.hpp"
#include "support/kernel_check.hpp"

using namespace blockscope::kernels;
using namespace blockscope::kernel_check;

namespace {
const int64_t kHeadSizes[] = {1, 3, 4, 7, 16, 21, 64, 68};
const int64_t kRows[] = {1, 2, 3, 4, 5, 9, 33};

// One head of a (S, stride) cache: q (hs), rows (S, stride) whose first hs columns belong to the head, and
// softmax-like weights p (S).
struct Head {
  int64_t hs, S, stride;
  std::vector<float> q, rows, p;
  Head(int64_t hs_, int64_t S_)
      : hs(hs_), S(S_), stride(hs_ + 3), q(random_vec(hs_, 10 + hs_)), rows(random_vec(S_ * (hs_ + 3), 20 + S_)),
        p(random_vec(S_, 30 + S_)) {}
  std::string name() const { return "hs=" + std::to_string(hs) + " S=" + std::to_string(S); }
};

std::vector<float> run_scores(AttentionScoresFn f, const Head& h) {
  std::vector<float> y(static_cast<size_t>(h.S + kGuard), kNaN);
  f(y.data(), h.q.data(), h.rows.data(), h.stride, h.hs, h.S);
  for (int64_t i = h.S; i < h.S + kGuard; ++i) REQUIRE(std::isnan(y[i]));
  y.resize(static_cast<size_t>(h.S));
  return y;
}

std::vector<float> run_weighted_sum(AttentionWeightedSumFn f, const Head& h) {
  std::vector<float> y(static_cast<size_t>(h.hs + kGuard), kNaN);
  f(y.data(), h.p.data(), h.rows.data(), h.stride, h.hs, h.S);
  for (int64_t i = h.hs; i < h.hs + kGuard; ++i) REQUIRE(std::isnan(y[i]));
  y.resize(static_cast<size_t>(h.hs));
  return y;
}

void require_close(const std::vector<float>& got, const std::vector<double>& want, const Head& h) {
  // Sums of at most 68 products of normal values: float32 rounding stays far below 1e-4 (mixed).
  const Deviation d = compare(got, want, 1e-4, 1e-5);
  INFO(h.name() << ": element " << d.index << " is " << d.got << ", expected " << d.want);
  REQUIRE(d.excess <= 0.0);
}

#ifdef BLOCKSCOPE_WASM_RELAXED
std::vector<double> widen(const std::vector<float>& v) { return {v.begin(), v.end()}; }
#endif

template <class F>
void for_each_head(F&& f) {
  for (int64_t hs : kHeadSizes)
    for (int64_t S : kRows) f(Head(hs, S));
}
}  // namespace

TEST_CASE("kernels: f32_attention_scores__generic matches a double-precision reference", "[kernels]") {
  for_each_head([](const Head& h) {
    std::vector<double> want(static_cast<size_t>(h.S));
    for (int64_t s = 0; s < h.S; ++s)
      for (int64_t j = 0; j < h.hs; ++j) want[s] += static_cast<double>(h.q[j]) * h.rows[s * h.stride + j];
    require_close(run_scores(f32_attention_scores__generic, h), want, h);
  });
}

TEST_CASE("kernels: f32_attention_weighted_sum__generic matches a double-precision reference", "[kernels]") {
  for_each_head([](const Head& h) {
    std::vector<double> want(static_cast<size_t>(h.hs));
    for (int64_t s = 0; s < h.S; ++s)
      for (int64_t j = 0; j < h.hs; ++j) want[j] += static_cast<double>(h.p[s]) * h.rows[s * h.stride + j];
    require_close(run_weighted_sum(f32_attention_weighted_sum__generic, h), want, h);
  });
}

#ifdef __wasm_simd128__
TEST_CASE("kernels: f32_attention_scores__simd128 equals its generic twin bit for bit", "[kernels][simd128]") {
  for_each_head([](const Head& h) {
    const auto got = run_scores(f32_attention_scores__simd128, h);
    const auto want = run_scores(f32_attention_scores__generic, h);
    for (size_t i = 0; i < want.size(); ++i) {
      INFO(h.name() << ": score " << i);
      REQUIRE(got[i] == want[i]);
    }
  });
}

TEST_CASE("kernels: f32_attention_weighted_sum__simd128 equals its generic twin bit for bit",
          "[kernels][simd128]") {
  for_each_head([](const Head& h) {
    const auto got = run_weighted_sum(f32_attention_weighted_sum__simd128, h);
    const auto want = run_weighted_sum(f32_attention_weighted_sum__generic, h);
    for (size_t i = 0; i < want.size(); ++i) {
      INFO(h.name() << ": column " << i);
      REQUIRE(got[i] == want[i]);
    }
  });
}
#endif

#ifdef BLOCKSCOPE_WASM_RELAXED
// relaxed_madd may fuse (round once) or not, so the relaxed kernels are not bit-identical to their twins: they are
// held to the tolerance the generic kernels meet against the double reference, against both.
TEST_CASE("kernels: f32_attention_scores__relaxed matches its generic twin", "[kernels][relaxed]") {
  for_each_head([](const Head& h) {
    const auto got = run_scores(f32_attention_scores__relaxed, h);
    require_close(got, widen(run_scores(f32_attention_scores__generic, h)), h);
    std::vector<double> want(static_cast<size_t>(h.S));
    for (int64_t s = 0; s < h.S; ++s)
      for (int64_t j = 0; j < h.hs; ++j) want[s] += static_cast<double>(h.q[j]) * h.rows[s * h.stride + j];
    require_close(got, want, h);
  });
}

TEST_CASE("kernels: f32_attention_weighted_sum__relaxed matches its generic twin", "[kernels][relaxed]") {
  for_each_head([](const Head& h) {
    const auto got = run_weighted_sum(f32_attention_weighted_sum__relaxed, h);
    require_close(got, widen(run_weighted_sum(f32_attention_weighted_sum__generic, h)), h);
    std::vector<double> want(static_cast<size_t>(h.hs));
    for (int64_t s = 0; s < h.S; ++s)
      for (int64_t j = 0; j < h.hs; ++j) want[j] += static_cast<double>(h.p[s]) * h.rows[s * h.stride + j];
    require_close(got, want, h);
  });
}
#endif
