// Tests for the backward kernels of f32_linear (core/src/kernels): the generic set against a double-precision
// naive reference, and, when compiled with -msimd128 (tests/wasm_kernels/), the SIMD128 set against its
// generic twins. Gradients start with random values (to prove +=), NaN guard cells follow every buffer, and
// shapes are not multiples of the 4x8 tile.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "blockscope/rng.hpp"
#include "kernels/kernels.hpp"

using namespace blockscope;
using namespace blockscope::kernels;

namespace {
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
// |a - e| <= atol + rtol |e|. Backward reduces over N (dweight, dbias) or OC (dinp), never over C, so with
// the shapes below every float32 result is the prior value plus a sum of at most 33 products of N(0, 1)
// numbers (magnitude ~6): its rounding error is ~sqrt(34) * 2^-24 * 6 ~ 2e-6, well inside 1e-5.
constexpr double kAtol = 1e-5;
constexpr double kRtol = 1e-5;
constexpr int64_t kGuard = 5;  // NaN cells after every buffer

const int64_t kNs[] = {1, 2, 3, 4, 5, 17, 33};
const int64_t kCs[] = {1, 3, 8, 17, 64};
const int64_t kOCs[] = {1, 7, 8, 9, 33};

std::vector<float> random_vec(int64_t n, uint64_t seed) {
  Rng r(seed);
  std::vector<float> v(static_cast<size_t>(n));
  for (auto& x : v) x = r.normal();
  return v;
}

// Which gradients a call computes (the others are passed as null).
enum Want : unsigned { kDinp = 1, kDweight = 2, kDbias = 4, kAll = 7 };

// The three gradients in one arena, each followed by kGuard NaN cells: dinp (N, C), dweight (OC, C), dbias (OC).
struct Grads {
  int64_t N, C, OC;
  std::vector<float> arena;
  Grads(int64_t n, int64_t c, int64_t oc) : N(n), C(c), OC(oc) {
    arena.assign(static_cast<size_t>(N * C + OC * C + OC + 3 * kGuard), kNaN);
  }
  size_t offset(Want w) const {
    if (w == kDinp) return 0;
    if (w == kDweight) return static_cast<size_t>(N * C + kGuard);
    return static_cast<size_t>(N * C + OC * C + 2 * kGuard);
  }
  size_t size(Want w) const { return static_cast<size_t>(w == kDinp ? N * C : w == kDweight ? OC * C : OC); }
  float* ptr(Want w) { return arena.data() + offset(w); }
  std::vector<float> get(Want w) const {
    return {arena.begin() + offset(w), arena.begin() + offset(w) + size(w)};
  }
};

// A backward problem: dout (N, OC), inp (N, C), weight (OC, C), and prior gradient values.
struct Problem {
  int64_t N, C, OC;
  std::vector<float> dout, inp, weight, dinp0, dweight0, dbias0;
  Problem(int64_t n, int64_t c, int64_t oc)
      : N(n), C(c), OC(oc), dout(random_vec(n * oc, 11 + n * 7 + oc)), inp(random_vec(n * c, 12 + n + c)),
        weight(random_vec(oc * c, 13 + oc * 5 + c)), dinp0(random_vec(n * c, 14 + n)),
        dweight0(random_vec(oc * c, 15 + oc)), dbias0(random_vec(oc, 16 + oc)) {}
  const std::vector<float>& prior(Want w) const { return w == kDinp ? dinp0 : w == kDweight ? dweight0 : dbias0; }
  std::string name() const {
    return "N=" + std::to_string(N) + " C=" + std::to_string(C) + " OC=" + std::to_string(OC);
  }
};

// The expected gradient w (prior + product) in double: naive loops.
std::vector<double> reference(const Problem& p, Want w) {
  const std::vector<float>& g0 = p.prior(w);
  std::vector<double> g(g0.begin(), g0.end());
  for (int64_t n = 0; n < p.N; ++n)
    for (int64_t o = 0; o < p.OC; ++o) {
      const double d = p.dout[n * p.OC + o];
      if (w == kDbias) g[o] += d;
      for (int64_t c = 0; c < p.C && w != kDbias; ++c) {
        if (w == kDinp) g[n * p.C + c] += d * p.weight[o * p.C + c];
        else g[o * p.C + c] += d * p.inp[n * p.C + c];
      }
    }
  return g;
}

// Runs f32_linear_backward on `k` for the gradients in `want`, each buffer holding its prior values. Checks
// every guard cell, and that the skipped gradients still hold exactly their prior values.
Grads run_backward(const LinearBackwardKernels& k, const Problem& p, unsigned want = kAll) {
  Grads g(p.N, p.C, p.OC);
  for (Want w : {kDinp, kDweight, kDbias}) std::copy(p.prior(w).begin(), p.prior(w).end(), g.ptr(w));
  const auto out = [&](Want w) { return (want & w) ? g.ptr(w) : nullptr; };
  f32_linear_backward(k, out(kDinp), out(kDweight), out(kDbias), p.dout.data(), p.inp.data(), p.weight.data(),
                      p.N, p.C, p.OC);
  INFO(p.name() << " want=" << want);
  for (Want w : {kDinp, kDweight, kDbias}) {
    for (int64_t i = 0; i < kGuard; ++i) REQUIRE(std::isnan(g.arena[g.offset(w) + g.size(w) + i]));
    if (!(want & w)) REQUIRE(g.get(w) == p.prior(w));
  }
  return g;
}

struct Deviation {
  int64_t index = -1;
  double got = 0, want = 0, abs = 0, excess = -1;
};
template <class T>
Deviation compare(const std::vector<float>& got, const std::vector<T>& want) {
  Deviation d;
  for (size_t i = 0; i < want.size(); ++i) {
    const double a = got[i], e = static_cast<double>(want[i]), err = std::fabs(a - e);
    const double excess = std::isnan(err) ? 1.0 : err - (kAtol + kRtol * std::fabs(e));
    if (excess > d.excess || d.index < 0) d = {static_cast<int64_t>(i), a, e, err, excess};
  }
  return d;
}

template <class T>
void require_close(const std::vector<float>& got, const std::vector<T>& want, const std::string& what,
                   double* worst = nullptr) {
  REQUIRE(got.size() == want.size());
  const Deviation d = compare(got, want);
  INFO(what << ": element " << d.index << " is " << d.got << ", expected " << d.want);
  REQUIRE(d.excess <= 0.0);
  if (worst && d.abs > *worst) *worst = d.abs;
}

const char* grad_name(Want w) { return w == kDinp ? " dinp" : w == kDweight ? " dweight" : " dbias"; }

// The kernel set as given, and with tiny blocks so that every shape above crosses mc and kc boundaries.
std::vector<LinearBackwardKernels> blockings(const LinearBackwardKernels& k) {
  LinearBackwardKernels tiny = k, odd = k;
  tiny.mc = 1, tiny.kc = 1;
  odd.mc = 5, odd.kc = 3;
  return {k, tiny, odd};
}

template <class F>
void for_each_problem(F&& f) {
  for (int64_t N : kNs)
    for (int64_t C : kCs)
      for (int64_t OC : kOCs) f(Problem(N, C, OC));
}

// One mr x nc tile of the accumulating GEMM onto prior values in an (mr, nc + kGuard) buffer, a read with
// row stride K + 3. Returns the tile; the cells right of it must stay NaN.
std::vector<float> run_gemm_acc_tile(GemmAccFn gemm, int64_t mr, int64_t nc, int64_t K) {
  const std::vector<float> a0 = random_vec(mr * (K + 3), 21 + K), b = random_vec(K * nc, 22 + nc);
  const std::vector<float> prior = random_vec(mr * nc, 23 + mr);
  std::vector<float> packed(static_cast<size_t>(K * kGemmNR + kGuard), kNaN);
  f32_pack_rows_8__generic(packed.data(), b.data(), nc, nc, K);
  const int64_t stride = nc + kGuard;
  std::vector<float> out(static_cast<size_t>(mr * stride), kNaN), tile;
  for (int64_t r = 0; r < mr; ++r)
    for (int64_t j = 0; j < nc; ++j) out[r * stride + j] = prior[r * nc + j];
  gemm(out.data(), stride, a0.data(), K + 3, packed.data(), mr, nc, K);
  for (int64_t r = 0; r < mr; ++r)
    for (int64_t j = 0; j < stride; ++j) {
      if (j < nc) tile.push_back(out[r * stride + j]);
      else REQUIRE(std::isnan(out[r * stride + j]));
    }
  return tile;
}

std::vector<double> gemm_acc_tile_reference(int64_t mr, int64_t nc, int64_t K) {
  const std::vector<float> a0 = random_vec(mr * (K + 3), 21 + K), b = random_vec(K * nc, 22 + nc);
  const std::vector<float> prior = random_vec(mr * nc, 23 + mr);
  std::vector<double> want(prior.begin(), prior.end());
  for (int64_t r = 0; r < mr; ++r)
    for (int64_t j = 0; j < nc; ++j)
      for (int64_t k = 0; k < K; ++k) want[r * nc + j] += static_cast<double>(a0[r * (K + 3) + k]) * b[k * nc + j];
  return want;
}

const int64_t kKs[] = {1, 2, 5, 8, 33};
}  // namespace

TEST_CASE("backward kernels: f32_gemm_acc_4x8__generic adds a @ panel onto every tile shape",
          "[kernels][backward]") {
  for (int64_t mr = 1; mr <= kGemmMR; ++mr)
    for (int64_t nc = 1; nc <= kGemmNR; ++nc)
      for (int64_t K : kKs)
        require_close(run_gemm_acc_tile(f32_gemm_acc_4x8__generic, mr, nc, K), gemm_acc_tile_reference(mr, nc, K),
                      "mr=" + std::to_string(mr) + " nc=" + std::to_string(nc) + " K=" + std::to_string(K));
}

TEST_CASE("backward kernels: f32_linear_backward on the generic kernels matches a double-precision reference",
          "[kernels][backward]") {
  for (const LinearBackwardKernels& k : blockings(kLinearBackwardGeneric))
    for_each_problem([&](const Problem& p) {
      const Grads g = run_backward(k, p);
      for (Want w : {kDinp, kDweight, kDbias})
        require_close(g.get(w), reference(p, w),
                      p.name() + grad_name(w) + " mc=" + std::to_string(k.mc) + " kc=" + std::to_string(k.kc));
    });
}

TEST_CASE("backward kernels: null gradients are skipped and the others computed as with all three",
          "[kernels][backward]") {
  for (const Problem& p : {Problem(5, 17, 9), Problem(33, 3, 7), Problem(1, 1, 1)}) {
    const Grads all = run_backward(kLinearBackwardGeneric, p);
    for (unsigned want = 0; want < kAll; ++want) {
      const Grads some = run_backward(kLinearBackwardGeneric, p, want);  // checks the skipped ones kept priors
      for (Want w : {kDinp, kDweight, kDbias})
        if (want & w) REQUIRE(some.get(w) == all.get(w));
    }
  }
}

TEST_CASE("backward kernels: the default blocking splits large shapes without changing the result",
          "[kernels][backward]") {
  // N = 300 > kc = 256 splits dweight's reduction and N, OC = 141 > mc = 128 split rows. Sums of 300 terms
  // (magnitude ~17): float32 error ~sqrt(300) * 2^-24 * 17 ~ 2e-5 absolute, inside rtol * |e| only when |e|
  // is not tiny, so this compares against the same kernels unblocked (mc, kc huge), at the 1e-5 tolerance.
  const Problem p(300, 19, 141);
  LinearBackwardKernels whole = kLinearBackwardGeneric;
  whole.mc = whole.kc = int64_t{1} << 40;
  const Grads blocked = run_backward(kLinearBackwardGeneric, p), once = run_backward(whole, p);
  for (Want w : {kDinp, kDweight, kDbias}) {
    require_close(blocked.get(w), once.get(w), p.name() + grad_name(w) + " blocked vs whole");
    const Deviation d = compare(once.get(w), reference(p, w));
    INFO(p.name() << grad_name(w) << ": element " << d.index << " is " << d.got << ", expected " << d.want);
    REQUIRE(d.abs <= 1e-4);  // and both near the double reference
  }
}

#ifdef __wasm_simd128__
namespace {
double worst_tile = 0, worst_colsum = 0, worst_backward = 0;  // largest |simd128 - generic| seen

// A (rows, cols) source with row stride cols + 2, transposed into a NaN buffer with row stride rows + 3:
// returns the whole buffer, so padding cells must come back NaN as well.
std::vector<float> run_transpose(TransposeFn t, int64_t rows, int64_t cols) {
  const std::vector<float> src = random_vec(rows * (cols + 2), 31 + rows * 3 + cols);
  std::vector<float> dst(static_cast<size_t>(cols * (rows + 3) + kGuard), kNaN);
  t(dst.data(), rows + 3, src.data(), cols + 2, rows, cols);
  return dst;
}

std::vector<float> run_colsum(ColsumAccFn f, int64_t rows, int64_t cols) {
  const std::vector<float> src = random_vec(rows * cols, 41 + rows), prior = random_vec(cols, 42 + cols);
  std::vector<float> sums(static_cast<size_t>(cols + kGuard), kNaN);
  std::copy(prior.begin(), prior.end(), sums.begin());
  f(sums.data(), src.data(), rows, cols);
  for (int64_t i = 0; i < kGuard; ++i) REQUIRE(std::isnan(sums[static_cast<size_t>(cols + i)]));
  sums.resize(static_cast<size_t>(cols));
  return sums;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {  // NaN == NaN here
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!(a[i] == b[i] || (std::isnan(a[i]) && std::isnan(b[i])))) return false;
  return true;
}
}  // namespace

TEST_CASE("backward kernels: f32_pack_rows_8__simd128 packs exactly like its generic twin",
          "[kernels][backward][simd128]") {
  for (int64_t nc = 1; nc <= kGemmNR; ++nc)
    for (int64_t K : kKs) {
      const std::vector<float> src = random_vec(K * (nc + 3), 51 + nc);
      const size_t n = static_cast<size_t>(K * kGemmNR);
      std::vector<float> got(n + kGuard, kNaN), want(n + kGuard, kNaN);
      f32_pack_rows_8__simd128(got.data(), src.data(), nc + 3, nc, K);
      f32_pack_rows_8__generic(want.data(), src.data(), nc + 3, nc, K);
      INFO("nc=" << nc << " K=" << K);
      REQUIRE(same_bits(got, want));  // a copy: bit for bit, guard cells still NaN
      for (size_t i = n; i < got.size(); ++i) REQUIRE(std::isnan(got[i]));
    }
}

TEST_CASE("backward kernels: f32_transpose_4x4__simd128 transposes exactly like its generic twin",
          "[kernels][backward][simd128]") {
  for (int64_t rows : {1, 3, 4, 5, 8, 17, 33})
    for (int64_t cols : {1, 3, 4, 7, 8, 9, 33}) {
      const std::vector<float> got = run_transpose(f32_transpose_4x4__simd128, rows, cols);
      INFO("rows=" << rows << " cols=" << cols);
      REQUIRE(same_bits(got, run_transpose(f32_transpose_4x4__generic, rows, cols)));
      const std::vector<float> src = random_vec(rows * (cols + 2), 31 + rows * 3 + cols);
      for (int64_t c = 0; c < cols; ++c)  // and it is the transpose, padding untouched
        for (int64_t r = 0; r < rows + 3; ++r) {
          const float v = got[static_cast<size_t>(c * (rows + 3) + r)];
          if (r < rows) REQUIRE(v == src[static_cast<size_t>(r * (cols + 2) + c)]);
          else REQUIRE(std::isnan(v));
        }
    }
}

TEST_CASE("backward kernels: f32_gemm_acc_4x8__simd128 tiles equal their generic twin",
          "[kernels][backward][simd128]") {
  for (int64_t mr = 1; mr <= kGemmMR; ++mr)
    for (int64_t nc = 1; nc <= kGemmNR; ++nc)
      for (int64_t K : kKs)
        require_close(run_gemm_acc_tile(f32_gemm_acc_4x8__simd128, mr, nc, K),
                      run_gemm_acc_tile(f32_gemm_acc_4x8__generic, mr, nc, K),
                      "mr=" + std::to_string(mr) + " nc=" + std::to_string(nc) + " K=" + std::to_string(K),
                      &worst_tile);
}

TEST_CASE("backward kernels: f32_colsum_acc_16__simd128 equals its generic twin", "[kernels][backward][simd128]") {
  for (int64_t rows : kNs)
    for (int64_t cols : {1, 3, 4, 7, 8, 15, 16, 17, 33, 50})
      require_close(run_colsum(f32_colsum_acc_16__simd128, rows, cols),
                    run_colsum(f32_colsum_acc_16__generic, rows, cols),
                    "rows=" + std::to_string(rows) + " cols=" + std::to_string(cols), &worst_colsum);
}

TEST_CASE("backward kernels: f32_linear_backward on the simd128 kernels equals the generic kernels",
          "[kernels][backward][simd128]") {
  const std::vector<LinearBackwardKernels> simd = blockings(kLinearBackwardSimd128);
  const std::vector<LinearBackwardKernels> generic = blockings(kLinearBackwardGeneric);
  for (size_t b = 0; b < simd.size(); ++b)
    for_each_problem([&](const Problem& p) {
      const Grads got = run_backward(simd[b], p), want = run_backward(generic[b], p);
      for (Want w : {kDinp, kDweight, kDbias}) {
        const std::string what = p.name() + grad_name(w) + " mc=" + std::to_string(simd[b].mc);
        require_close(got.get(w), want.get(w), what, &worst_backward);
        require_close(got.get(w), reference(p, w), what + " vs reference");
      }
    });
  std::printf("largest |simd128 - generic| (backward): gemm_acc tile %.3g, colsum %.3g, linear_backward %.3g\n",
              worst_tile, worst_colsum, worst_backward);
}
#endif
