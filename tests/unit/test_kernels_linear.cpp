// Tests for core/src/kernels: each *_generic kernel against a double-precision naive reference, and, when
// compiled with -msimd128 (the wasm kernel test, tests/wasm_kernels/), each *_simd128 kernel (and in the simd-relaxed
// build each *_relaxed kernel) against its generic twin. Shapes are not multiples of the vector width; outputs start as NaN so unwritten elements
// fail, and the cells around each output must still be NaN afterwards (nothing written out of bounds).
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "blockscope/ops.hpp"
#include "blockscope/rng.hpp"
#include "kernels/dispatch.hpp"
#include "kernels/kernels.hpp"
#include "support/kernel_check.hpp"

using namespace blockscope;
using namespace blockscope::kernels;
using namespace blockscope::kernel_check;

namespace {
// |a - e| <= atol + rtol |e|, as XNNPACK's testers; float32 sums of at most 100 normal products.
constexpr double kAtol = 1e-5;
constexpr double kRtol = 1e-5;

const int64_t kCs[] = {1, 3, 4, 5, 8, 17, 64, 100};
const int64_t kOCs[] = {1, 7, 8, 9, 16, 33};

// A linear problem: inp (N, C), weight (OC, C), bias (OC) or none.
struct Problem {
  int64_t N, C, OC;
  bool has_bias;
  std::vector<float> x, w, b;
  Problem(int64_t n, int64_t c, int64_t oc, bool bias)
      : N(n), C(c), OC(oc), has_bias(bias), x(random_vec(n * c, 1 + n)), w(random_vec(oc * c, 2 + c)),
        b(random_vec(oc, 3 + oc)) {}
  const float* bias() const { return has_bias ? b.data() : nullptr; }
  std::string name() const {
    return "N=" + std::to_string(N) + " C=" + std::to_string(C) + " OC=" + std::to_string(OC) +
           (has_bias ? " bias" : " no bias");
  }
};

// out (N, OC) in double: the naive triple loop.
std::vector<double> reference(const Problem& p) {
  std::vector<double> y(static_cast<size_t>(p.N * p.OC));
  for (int64_t n = 0; n < p.N; ++n)
    for (int64_t o = 0; o < p.OC; ++o) {
      double acc = p.has_bias ? p.b[o] : 0.0;
      for (int64_t c = 0; c < p.C; ++c) acc += static_cast<double>(p.x[n * p.C + c]) * p.w[o * p.C + c];
      y[n * p.OC + o] = acc;
    }
  return y;
}

// Runs f32_linear on `k` into a NaN-filled buffer; checks the guard and returns the N * OC outputs.
std::vector<float> run_linear(const LinearKernels& k, const Problem& p) {
  std::vector<float> y(static_cast<size_t>(p.N * p.OC + kGuard), kNaN);
  f32_linear(k, y.data(), p.x.data(), p.w.data(), p.bias(), p.N, p.C, p.OC);
  REQUIRE(guard_intact(y, static_cast<size_t>(p.N * p.OC)));
  y.resize(static_cast<size_t>(p.N * p.OC));
  return y;
}

std::vector<float> run_gemv(GemvFn gemv, const Problem& p) {
  std::vector<float> y(static_cast<size_t>(p.OC + kGuard), kNaN);
  gemv(y.data(), p.x.data(), p.w.data(), p.bias(), p.C, p.OC);
  REQUIRE(guard_intact(y, static_cast<size_t>(p.OC)));
  y.resize(static_cast<size_t>(p.OC));
  return y;
}

// One mr x nc tile written into a (mr, nc + kGuard) NaN buffer, inp rows read with stride C + 3. Returns
// the tile (mr, nc); cells right of the tile must stay NaN.
std::vector<float> run_gemm_tile(GemmFn gemm, const Problem& p) {
  const int64_t mr = p.N, nc = p.OC, C = p.C, in_stride = C + 3, out_stride = nc + kGuard;
  std::vector<float> a(static_cast<size_t>(mr * in_stride), kNaN);
  for (int64_t r = 0; r < mr; ++r)
    for (int64_t c = 0; c < C; ++c) a[r * in_stride + c] = p.x[r * C + c];
  std::vector<float> packed(static_cast<size_t>((1 + C) * kGemmNR), kNaN);
  f32_gemm_pack_8__generic(packed.data(), p.w.data(), p.bias(), nc, C);
  std::vector<float> y(static_cast<size_t>(mr * out_stride), kNaN), tile;
  gemm(y.data(), out_stride, a.data(), in_stride, packed.data(), mr, nc, C);
  for (int64_t r = 0; r < mr; ++r) {
    for (int64_t j = 0; j < out_stride; ++j) {
      if (j < nc) tile.push_back(y[r * out_stride + j]);
      else REQUIRE(std::isnan(y[r * out_stride + j]));
    }
  }
  return tile;
}

template <class T>
void require_close(const std::vector<float>& got, const std::vector<T>& want, const Problem& p,
                   double* worst = nullptr) {
  const Deviation d = compare(got, want, kAtol, kRtol);
  INFO(p.name() << ": element " << d.index << " is " << d.got << ", expected " << d.want);
  REQUIRE(d.excess <= 0.0);
  if (worst && d.abs > *worst) *worst = d.abs;
}

template <class F>
void for_each_linear_problem(F&& f) {
  for (int64_t N = 1; N <= 9; ++N)
    for (int64_t C : kCs)
      for (int64_t OC : kOCs)
        for (bool bias : {true, false}) f(Problem(N, C, OC, bias));
}

// Every tile shape of the 4x8 micro-kernel: mr 1..4 rows, nc 1..8 columns.
template <class F>
void for_each_tile_problem(F&& f) {
  for (int64_t mr = 1; mr <= kGemmMR; ++mr)
    for (int64_t nc = 1; nc <= kGemmNR; ++nc)
      for (int64_t C : kCs)
        for (bool bias : {true, false}) f(Problem(mr, C, nc, bias));
}
}  // namespace

TEST_CASE("kernels: f32_gemm_4x8__generic tiles match a double-precision reference", "[kernels]") {
  for_each_tile_problem([](const Problem& p) {
    require_close(run_gemm_tile(f32_gemm_4x8__generic, p), reference(p), p);
  });
}

TEST_CASE("kernels: f32_gemv__generic matches a double-precision reference", "[kernels]") {
  for (int64_t C : kCs)
    for (int64_t OC : kOCs)
      for (bool bias : {true, false}) {
        const Problem p(1, C, OC, bias);
        require_close(run_gemv(f32_gemv__generic, p), reference(p), p);
      }
}

TEST_CASE("kernels: f32_linear on the generic kernels matches a double-precision reference", "[kernels]") {
  // gemv_below_n 0 sends every N through the packed GEMM, 100 every N through GEMV.
  for (int64_t gemv_below_n : {kLinearGeneric.gemv_below_n, int64_t{0}, int64_t{100}}) {
    LinearKernels k = kLinearGeneric;
    k.gemv_below_n = gemv_below_n;
    for_each_linear_problem([&](const Problem& p) { require_close(run_linear(k, p), reference(p), p); });
  }
}

#ifdef __wasm_simd128__
namespace {
double worst_gemm = 0, worst_gemv = 0, worst_linear = 0;  // largest |simd128 - generic| seen
}  // namespace

TEST_CASE("kernels: f32_gemm_pack_8__simd128 packs exactly like its generic twin", "[kernels][simd128]") {
  for (int64_t nc = 1; nc <= kGemmNR; ++nc)
    for (int64_t C : kCs)
      for (bool bias : {true, false}) {
        const Problem p(1, C, nc, bias);
        const size_t n = static_cast<size_t>((1 + C) * kGemmNR);
        std::vector<float> got(n + kGuard, kNaN), want(n + kGuard, kNaN);
        f32_gemm_pack_8__simd128(got.data(), p.w.data(), p.bias(), nc, C);
        f32_gemm_pack_8__generic(want.data(), p.w.data(), p.bias(), nc, C);
        INFO(p.name());
        REQUIRE(guard_intact(got, n));
        for (size_t i = 0; i < n; ++i) REQUIRE(got[i] == want[i]);  // a copy: bit for bit
      }
}

TEST_CASE("kernels: f32_gemm_4x8__simd128 tiles equal their generic twin", "[kernels][simd128]") {
  for_each_tile_problem([](const Problem& p) {
    require_close(run_gemm_tile(f32_gemm_4x8__simd128, p), run_gemm_tile(f32_gemm_4x8__generic, p), p,
                  &worst_gemm);
  });
}

TEST_CASE("kernels: f32_gemv__simd128 equals its generic twin bit for bit", "[kernels][simd128]") {
  for (int64_t C : kCs)
    for (int64_t OC : kOCs)
      for (bool bias : {true, false}) {
        const Problem p(1, C, OC, bias);
        const std::vector<float> got = run_gemv(f32_gemv__simd128, p), want = run_gemv(f32_gemv__generic, p);
        require_close(got, want, p, &worst_gemv);
        for (size_t i = 0; i < want.size(); ++i) REQUIRE(got[i] == want[i]);  // same summation order
      }
}

TEST_CASE("kernels: f32_linear on the simd128 kernels equals the generic kernels", "[kernels][simd128]") {
  for (int64_t gemv_below_n : {kLinearSimd128.gemv_below_n, int64_t{0}, int64_t{100}}) {
    LinearKernels simd = kLinearSimd128, generic = kLinearGeneric;
    simd.gemv_below_n = generic.gemv_below_n = gemv_below_n;
    for_each_linear_problem([&](const Problem& p) {
      require_close(run_linear(simd, p), run_linear(generic, p), p, &worst_linear);
    });
  }
  std::printf("largest |simd128 - generic|: gemm tile %.3g, gemv %.3g, linear %.3g\n", worst_gemm,
              worst_gemv, worst_linear);
}

namespace {
// linear_forward runs kernel set `k`: the same kernels give the same bits.
void require_linear_forward_runs(const LinearKernels& k) {
  for (int64_t N : {1, 3, 4, 9}) {
    const Problem p(N, 17, 33, true);
    std::vector<float> y(static_cast<size_t>(N * p.OC), kNaN);
    linear_forward(y.data(), p.x.data(), p.w.data(), p.bias(), p.N, p.C, p.OC);
    const std::vector<float> want = run_linear(k, p);
    for (size_t i = 0; i < y.size(); ++i) REQUIRE(y[i] == want[i]);
  }
}
}  // namespace

#ifndef BLOCKSCOPE_WASM_RELAXED
TEST_CASE("kernels: linear_forward runs the simd128 kernels in SIMD128 builds", "[kernels][simd128]") {
  require_linear_forward_runs(kLinearSimd128);
}
#else
// The simd-relaxed flavour's kernels (relaxed_madd: fused or not, as the engine likes) within the same tolerances as
// the SIMD128 ones, but not bit for bit.
TEST_CASE("kernels: f32_gemm_4x8__relaxed tiles match their generic twin", "[kernels][relaxed]") {
  double worst = 0;
  for_each_tile_problem([&](const Problem& p) {
    require_close(run_gemm_tile(f32_gemm_4x8__relaxed, p), run_gemm_tile(f32_gemm_4x8__generic, p), p, &worst);
  });
  std::printf("largest |relaxed - generic|: gemm tile %.3g\n", worst);
}

TEST_CASE("kernels: f32_gemv__relaxed matches its generic twin", "[kernels][relaxed]") {
  double worst = 0;
  for (int64_t C : kCs)
    for (int64_t OC : kOCs)
      for (bool bias : {true, false}) {
        const Problem p(1, C, OC, bias);
        require_close(run_gemv(f32_gemv__relaxed, p), run_gemv(f32_gemv__generic, p), p, &worst);
      }
  std::printf("largest |relaxed - generic|: gemv %.3g\n", worst);
}

TEST_CASE("kernels: f32_linear on the relaxed kernels matches the generic kernels and the reference", "[kernels][relaxed]") {
  REQUIRE(kLinearRelaxed.gemm == f32_gemm_4x8__relaxed);
  REQUIRE(kLinearRelaxed.gemv == f32_gemv__relaxed);
  double worst = 0;
  for (int64_t gemv_below_n : {kLinearRelaxed.gemv_below_n, int64_t{0}, int64_t{100}}) {
    LinearKernels relaxed = kLinearRelaxed, generic = kLinearGeneric;
    relaxed.gemv_below_n = generic.gemv_below_n = gemv_below_n;
    for_each_linear_problem([&](const Problem& p) {
      const std::vector<float> got = run_linear(relaxed, p);
      require_close(got, run_linear(generic, p), p, &worst);
      require_close(got, reference(p), p);
    });
  }
  std::printf("largest |relaxed - generic|: linear %.3g\n", worst);
}

TEST_CASE("kernels: linear_forward runs the relaxed kernels in the simd-relaxed build", "[kernels][relaxed]") {
  require_linear_forward_runs(kLinearRelaxed);
}
#endif
#endif

TEST_CASE("kernels: the dispatch table names this build's ISA and holds its kernels", "[kernels]") {
  const Dispatch& d = active();
  REQUIRE(std::string(kernel_isa()) == d.isa);
#if defined(BLOCKSCOPE_WASM_RELAXED)
  REQUIRE(std::string(d.isa) == "relaxed-simd");
  REQUIRE(d.linear == f32_linear_on<kLinearRelaxed>);
  REQUIRE(d.linear_backward == f32_linear_backward_on<kLinearBackwardRelaxed>);
  REQUIRE(d.attention_scores == f32_attention_scores__relaxed);
  REQUIRE(d.attention_weighted_sum == f32_attention_weighted_sum__relaxed);
  REQUIRE(d.q8_gemv == q8_gemv__simd128);
#elif defined(__wasm_simd128__)
  REQUIRE(std::string(d.isa) == "simd128");
  REQUIRE(d.linear == f32_linear_on<kLinearSimd128>);
  REQUIRE(d.linear_backward == f32_linear_backward_on<kLinearBackwardSimd128>);
  REQUIRE(d.attention_scores == f32_attention_scores__simd128);
  REQUIRE(d.q8_gemv == q8_gemv__simd128);
#else
  REQUIRE(std::string(d.isa) == "generic");
  REQUIRE(d.linear == f32_linear__eigen);  // Eigen's products
  REQUIRE(d.linear_backward == f32_linear_backward__eigen);
  REQUIRE(d.attention_scores == nullptr);
  REQUIRE(d.q8_gemv == q8_gemv__generic);
#endif
  // Every build has a row maximum; it equals std::max_element's at every length and position of the maximum.
  for (int64_t n : {1, 3, 7, 8, 9, 15, 16, 17, 100}) {
    for (int64_t at = 0; at < n; ++at) {
      std::vector<float> r = random_vec(n, 40 + n);
      r[static_cast<size_t>(at)] = 10.0f;
      REQUIRE(d.row_max(r.data(), n) == 10.0f);
      REQUIRE(f32_row_max__generic(r.data(), n) == 10.0f);
    }
  }
}
