// Tests for the backward kernels of f32_linear (core/src/kernels): the generic set against a double-precision
// naive reference, and, when compiled with -msimd128 (tests/wasm_kernels/), the SIMD128 set (and in the simd-relaxed
// build the relaxed set) against its generic twins. Gradients start with random values (to prove +=), NaN guard cells follow every buffer, and
// shapes are not multiples of the 4x8 tile.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "blockscope/rng.hpp"
#include "kernels/kernels.hpp"
#include "support/kernel_check.hpp"

using namespace blockscope;
using namespace blockscope::kernels;
using namespace blockscope::kernel_check;

namespace {
// |a - e| <= atol + rtol |e|, unscaled: backward reduces over N (dweight, dbias) or OC (dinp), never over C,
// so with the shapes below each float32 result is the prior value plus a sum of at most 33 products of
// N(0, 1) numbers. Partial sums stay ~6 in magnitude, so 34 roundings of <= 2^-24 * 6 add up to ~2e-6 as a
// random walk: no size-dependent term needed (measured worst: 2.6e-6, 23 % of the tolerance).
constexpr double kAtol = 1e-5;
constexpr double kRtol = 1e-5;

const int64_t kNs[] = {1, 2, 3, 4, 5, 17, 33};
const int64_t kCs[] = {1, 3, 8, 17, 64};
const int64_t kOCs[] = {1, 7, 8, 9, 33};

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

template <class T>
void require_close(const std::vector<float>& got, const std::vector<T>& want, const std::string& what,
                   double* worst = nullptr) {
  REQUIRE(got.size() == want.size());
  const Deviation d = compare(got, want, kAtol, kRtol);
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

// A (mr, K) read with row stride K + 3, B (K, nc), and prior values of the mr x nc tile.
struct Tile {
  int64_t mr, nc, K;
  std::vector<float> a, b, prior;
  Tile(int64_t m, int64_t n, int64_t k)
      : mr(m), nc(n), K(k), a(random_vec(m * (k + 3), 21 + k)), b(random_vec(k * n, 22 + n)),
        prior(random_vec(m * n, 23 + m)) {}
  std::string name() const {
    return "mr=" + std::to_string(mr) + " nc=" + std::to_string(nc) + " K=" + std::to_string(K);
  }
};

// The tile accumulated by `gemm` from generically packed operands into an (mr, nc + kGuard) buffer holding
// the prior values. Returns the tile; the cells right of it must stay NaN.
std::vector<float> run_gemm_acc_tile(GemmAccFn gemm, const Tile& t) {
  std::vector<float> pa(static_cast<size_t>(t.K * kGemmMR), kNaN), pb(static_cast<size_t>(t.K * kGemmNR), kNaN);
  f32_pack_a_4__generic(pa.data(), t.a.data(), t.K + 3, t.mr, t.K);
  f32_pack_b_8__generic(pb.data(), t.b.data(), t.nc, t.nc, t.K);
  const int64_t stride = t.nc + kGuard;
  std::vector<float> out(static_cast<size_t>(t.mr * stride), kNaN), tile;
  for (int64_t r = 0; r < t.mr; ++r)
    for (int64_t j = 0; j < t.nc; ++j) out[r * stride + j] = t.prior[r * t.nc + j];
  gemm(out.data(), stride, pa.data(), pb.data(), t.mr, t.nc, t.K);
  for (int64_t r = 0; r < t.mr; ++r)
    for (int64_t j = 0; j < stride; ++j) {
      if (j < t.nc) tile.push_back(out[r * stride + j]);
      else REQUIRE(std::isnan(out[r * stride + j]));
    }
  return tile;
}

std::vector<double> gemm_acc_tile_reference(const Tile& t) {
  std::vector<double> want(t.prior.begin(), t.prior.end());
  for (int64_t r = 0; r < t.mr; ++r)
    for (int64_t j = 0; j < t.nc; ++j)
      for (int64_t k = 0; k < t.K; ++k)
        want[r * t.nc + j] += static_cast<double>(t.a[r * (t.K + 3) + k]) * t.b[k * t.nc + j];
  return want;
}

// Which packing, and the (width, K) panel it makes from a source with row stride ld = its used width + 3.
enum class Pack { kA, kAt, kB };
struct PackCase {
  Pack kind;
  int64_t used, K;  // mr (A) or nc (B) <= the panel width; K
  int64_t width() const { return kind == Pack::kB ? kGemmNR : kGemmMR; }
  int64_t ld() const { return kind == Pack::kA ? K + 3 : used + 3; }
  std::vector<float> source() const { return random_vec((kind == Pack::kA ? used : K) * ld(), 61 + used * 9 + K); }
  // What packed[k][x] must be: the element (row x, column k) of A, or (row k, column x) of B; 0 when padding.
  float expected(const std::vector<float>& src, int64_t k, int64_t x) const {
    if (x >= used) return 0.0f;
    return kind == Pack::kA ? src[static_cast<size_t>(x * ld() + k)] : src[static_cast<size_t>(k * ld() + x)];
  }
  std::string name() const {
    return std::string(kind == Pack::kA ? "pack_a_4" : kind == Pack::kAt ? "pack_at_4" : "pack_b_8") +
           " used=" + std::to_string(used) + " K=" + std::to_string(K);
  }
};

// The packed panel plus kGuard cells after it (which must come back NaN).
std::vector<float> run_pack(const PackCase& c, bool simd) {
  const std::vector<float> src = c.source();
  std::vector<float> out(static_cast<size_t>(c.width() * c.K + kGuard), kNaN);
  PackAFn a = f32_pack_a_4__generic, at = f32_pack_at_4__generic;
  PackBFn b = f32_pack_b_8__generic;
#ifdef __wasm_simd128__
  if (simd) a = f32_pack_a_4__simd128, at = f32_pack_at_4__simd128, b = f32_pack_b_8__simd128;
#else
  REQUIRE(!simd);
#endif
  if (c.kind == Pack::kA) a(out.data(), src.data(), c.ld(), c.used, c.K);
  if (c.kind == Pack::kAt) at(out.data(), src.data(), c.ld(), c.used, c.K);
  if (c.kind == Pack::kB) b(out.data(), src.data(), c.ld(), c.used, c.K);
  return out;
}

template <class F>
void for_each_pack_case(F&& f) {
  for (Pack kind : {Pack::kA, Pack::kAt, Pack::kB})
    for (int64_t used = 1; used <= (kind == Pack::kB ? kGemmNR : kGemmMR); ++used)
      for (int64_t K : {1, 2, 3, 4, 5, 8, 9, 33}) f(PackCase{kind, used, K});
}

const int64_t kKs[] = {1, 2, 5, 8, 33};
}  // namespace

TEST_CASE("backward kernels: the generic packings place every element as documented and zero the padding",
          "[kernels][backward]") {
  for_each_pack_case([](const PackCase& c) {
    const std::vector<float> got = run_pack(c, false), src = c.source();
    INFO(c.name());
    for (int64_t k = 0; k < c.K; ++k)
      for (int64_t x = 0; x < c.width(); ++x)
        REQUIRE(got[static_cast<size_t>(k * c.width() + x)] == c.expected(src, k, x));
    for (int64_t i = 0; i < kGuard; ++i) REQUIRE(std::isnan(got[static_cast<size_t>(c.width() * c.K + i)]));
  });
}

TEST_CASE("backward kernels: f32_gemm_acc_4x8__generic adds A @ B onto every tile shape", "[kernels][backward]") {
  for (int64_t mr = 1; mr <= kGemmMR; ++mr)
    for (int64_t nc = 1; nc <= kGemmNR; ++nc)
      for (int64_t K : kKs) {
        const Tile t(mr, nc, K);
        require_close(run_gemm_acc_tile(f32_gemm_acc_4x8__generic, t), gemm_acc_tile_reference(t), t.name());
      }
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
    const Deviation d = compare(once.get(w), reference(p, w), kAtol, kRtol);
    INFO(p.name() << grad_name(w) << ": element " << d.index << " is " << d.got << ", expected " << d.want);
    REQUIRE(d.abs <= 1e-4);  // and both near the double reference
  }
}

#ifdef __wasm_simd128__
namespace {
double worst_tile = 0, worst_colsum = 0, worst_backward = 0;  // largest |simd128 - generic| seen

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

TEST_CASE("backward kernels: the simd128 packings equal their generic twins bit for bit",
          "[kernels][backward][simd128]") {
  for_each_pack_case([](const PackCase& c) {
    INFO(c.name());
    REQUIRE(same_bits(run_pack(c, true), run_pack(c, false)));  // guard cells included
  });
}

namespace {
// Every tile shape of `gemm_acc` against the generic twin; the largest difference goes to *worst.
void check_gemm_acc_tiles(GemmAccFn gemm_acc, double* worst) {
  for (int64_t mr = 1; mr <= kGemmMR; ++mr)
    for (int64_t nc = 1; nc <= kGemmNR; ++nc)
      for (int64_t K : kKs) {
        const Tile t(mr, nc, K);
        require_close(run_gemm_acc_tile(gemm_acc, t), run_gemm_acc_tile(f32_gemm_acc_4x8__generic, t), t.name(), worst);
      }
}

// f32_linear_backward on kernel set `k` against the generic set (every blocking, every problem, and a shape the
// default blocking splits) and against the double reference.
void check_linear_backward(const LinearBackwardKernels& k, double* worst) {
  const std::vector<LinearBackwardKernels> tested = blockings(k);
  const std::vector<LinearBackwardKernels> generic = blockings(kLinearBackwardGeneric);
  for (size_t b = 0; b < tested.size(); ++b)
    for_each_problem([&](const Problem& p) {
      const Grads got = run_backward(tested[b], p), want = run_backward(generic[b], p);
      for (Want w : {kDinp, kDweight, kDbias}) {
        const std::string what = p.name() + grad_name(w) + " mc=" + std::to_string(tested[b].mc);
        require_close(got.get(w), want.get(w), what, worst);
        require_close(got.get(w), reference(p, w), what + " vs reference");
      }
    });
  const Problem big(300, 19, 141);  // the default blocking's split shapes, as in the generic test
  const Grads got = run_backward(k, big), want = run_backward(kLinearBackwardGeneric, big);
  for (Want w : {kDinp, kDweight, kDbias}) require_close(got.get(w), want.get(w), big.name() + grad_name(w), worst);
}
}  // namespace

TEST_CASE("backward kernels: f32_gemm_acc_4x8__simd128 tiles equal their generic twin",
          "[kernels][backward][simd128]") {
  check_gemm_acc_tiles(f32_gemm_acc_4x8__simd128, &worst_tile);
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
  check_linear_backward(kLinearBackwardSimd128, &worst_backward);
  std::printf("largest |simd128 - generic| (backward): gemm_acc tile %.3g, colsum %.3g, linear_backward %.3g\n",
              worst_tile, worst_colsum, worst_backward);
}

#ifdef BLOCKSCOPE_WASM_RELAXED
// The simd-relaxed flavour's kernels (relaxed_madd: fused or not, as the engine likes) within the same tolerances.
TEST_CASE("backward kernels: f32_gemm_acc_4x8__relaxed tiles match their generic twin", "[kernels][backward][relaxed]") {
  double worst = 0;
  check_gemm_acc_tiles(f32_gemm_acc_4x8__relaxed, &worst);
  std::printf("largest |relaxed - generic| (backward): gemm_acc tile %.3g\n", worst);
}

TEST_CASE("backward kernels: f32_linear_backward on the relaxed kernels matches the generic kernels",
          "[kernels][backward][relaxed]") {
  REQUIRE(kLinearBackwardRelaxed.gemm_acc == f32_gemm_acc_4x8__relaxed);
  double worst = 0;
  check_linear_backward(kLinearBackwardRelaxed, &worst);
  std::printf("largest |relaxed - generic| (backward): linear_backward %.3g\n", worst);
}
#endif
#endif
