// Benchmark of linear_forward's matrix kernels and of their backward in wasm under Node (built by
// bench/CMakeLists.txt): GFLOP/s of the generic kernels, Eigen (auto-vectorized) and the SIMD128 kernels, and in the
// simd-relaxed build the relaxed-SIMD ones next to them. Not a test.
#include <Eigen/Core>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

#include "blockscope/rng.hpp"
#include "kernels/kernels.hpp"
#include "limits.hpp"

using namespace blockscope;
using namespace blockscope::kernels;

namespace {
using LinearFn = void (*)(float*, const float*, const float*, const float*, int64_t, int64_t, int64_t);

// The former linear_forward: Eigen maps, auto-vectorized by clang in wasm (Eigen has no SIMD128 path).
void eigen_linear(float* out, const float* inp, const float* weight, const float* bias, int64_t N, int64_t C,
                  int64_t OC) {
  using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  Eigen::Map<RowMatrix> y(out, N, OC);
  y.noalias() = Eigen::Map<const RowMatrix>(inp, N, C) * Eigen::Map<const RowMatrix>(weight, OC, C).transpose();
  if (bias) y.rowwise() += Eigen::Map<const Eigen::RowVectorXf>(bias, OC);
}
void generic_linear(float* out, const float* inp, const float* weight, const float* bias, int64_t N, int64_t C,
                    int64_t OC) {
  f32_linear(kLinearGeneric, out, inp, weight, bias, N, C, OC);
}
#ifdef __wasm_simd128__
void simd128_linear(float* out, const float* inp, const float* weight, const float* bias, int64_t N, int64_t C,
                    int64_t OC) {
  f32_linear(kLinearSimd128, out, inp, weight, bias, N, C, OC);
}
// The SIMD128 kernels with every N forced through one path, for the GEMV/GEMM crossover.
void simd128_gemv_only(float* out, const float* inp, const float* weight, const float* bias, int64_t N,
                       int64_t C, int64_t OC) {
  f32_linear({f32_gemm_pack_8__simd128, f32_gemm_4x8__simd128, f32_gemv__simd128, 1 << 30}, out, inp, weight, bias, N, C, OC);
}
void simd128_gemm_only(float* out, const float* inp, const float* weight, const float* bias, int64_t N,
                       int64_t C, int64_t OC) {
  f32_linear({f32_gemm_pack_8__simd128, f32_gemm_4x8__simd128, f32_gemv__simd128, 0}, out, inp, weight, bias, N, C, OC);
}
#endif
#ifdef BLOCKSCOPE_WASM_RELAXED
void relaxed_linear(float* out, const float* inp, const float* weight, const float* bias, int64_t N, int64_t C,
                    int64_t OC) {
  f32_linear(kLinearRelaxed, out, inp, weight, bias, N, C, OC);
}
// The kernels the limits table judges: the build's fastest.
constexpr LinearFn kFastest = relaxed_linear;
constexpr const char* kFastestName = "relaxed-SIMD";
#elif defined(__wasm_simd128__)
constexpr LinearFn kFastest = simd128_linear;
constexpr const char* kFastestName = "simd128";
#endif

std::vector<float> uniform_vec(int64_t n, uint64_t seed) {
  Rng r(seed);
  std::vector<float> v(static_cast<size_t>(n));
  for (auto& x : v) x = r.uniform(-1.0f, 1.0f);
  return v;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

struct Shape {
  const char* name;
  int64_t N, C, OC;
  bool bias;
};

struct Buffers {
  std::vector<float> x, w, b, y;
  explicit Buffers(const Shape& s)
      : x(uniform_vec(s.N * s.C, 1)), w(uniform_vec(s.OC * s.C, 2)), b(uniform_vec(s.OC, 3)),
        y(static_cast<size_t>(s.N * s.OC)) {}
};

// Best-of CPU seconds per call (bench::cpu_seconds) after a warm-up of at least 3 calls and 0.2 s, which lets
// V8 tier the kernels up from its baseline compiler (Liftoff) to TurboFan; then at least 5 timed calls and 0.5 s.
template <class F>
double best_seconds(F&& call) {
  const auto t_warm = std::chrono::steady_clock::now();
  for (int i = 0; i < 3 || seconds_since(t_warm) < 0.2; ++i) call();
  double best = 1e30;
  const auto t_all = std::chrono::steady_clock::now();
  for (int i = 0; i < 5 || seconds_since(t_all) < 0.5; ++i) {
    const double t0 = bench::cpu_seconds();
    call();
    best = std::min(best, bench::cpu_seconds() - t0);
  }
  return best;
}

double gflops(LinearFn fn, const Shape& s, Buffers& bf) {
  const double t = best_seconds(
      [&] { fn(bf.y.data(), bf.x.data(), bf.w.data(), s.bias ? bf.b.data() : nullptr, s.N, s.C, s.OC); });
  return 2.0 * s.N * s.C * s.OC / t * 1e-9;
}

double max_abs_diff(const std::vector<float>& a, const std::vector<float>& b) {
  double m = 0;
  for (size_t i = 0; i < a.size(); ++i) m = std::max(m, std::fabs(static_cast<double>(a[i]) - b[i]));
  return m;
}

// The SIMD128 kernels against the machine's limits: GEMV streams its weight once per call (4 C OC bytes), so
// its speed is a bandwidth (GB/s, % of the single-thread read bandwidth); GEMM is compute-bound (% of the
// 128-bit mul + add peak). Matrices of 7 MB and more do not fit in cache.
void limits_table(const bench::Limits& lim) {
#ifdef __wasm_simd128__
  std::printf("\n%s kernels against the machine's limits (read %.1f GB/s, SIMD128 mul+add peak %.1f GFLOP/s)\n",
              kFastestName, lim.read_gbs, lim.peak_gflops);
  std::printf("%-4s %-14s %9s %9s %12s\n", "op", "N x C x OC", "GFLOP/s", "GB/s", "% of limit");
  const Shape shapes[] = {{"GEMM", 64, 768, 768, true},   {"GEMM", 64, 768, 2304, true},
                          {"GEMM", 64, 768, 3072, true},  {"GEMM", 64, 3072, 768, true},
                          {"GEMV", 1, 768, 2304, true},   {"GEMV", 1, 768, 3072, true},
                          {"GEMV", 1, 3072, 768, true},   {"GEMV", 1, 768, 50257, false}};
  for (const Shape& s : shapes) {
    Buffers bf(s);
    const double gf = gflops(kFastest, s, bf);
    const bool gemv = s.N == 1;
    const double gbs = gemv ? gf * 2.0 : NAN;  // 2 FLOP per 4-byte weight
    char dims[32];
    std::snprintf(dims, sizeof dims, "%lldx%lldx%lld", static_cast<long long>(s.N), static_cast<long long>(s.C),
                  static_cast<long long>(s.OC));
    // A weight under 32 MB stays in this machine's caches between calls: its GB/s is a cache bandwidth, above
    // the memory bandwidth decoding meets (where every one of the model's weights is read once per token).
    const bool cached = gemv && 4.0 * s.C * s.OC < 32e6;
    std::printf("%-4s %-14s %9.1f %9.1f %11.0f%%%s\n", s.name, dims, gf, gbs,
                gemv ? 100.0 * gbs / lim.read_gbs : 100.0 * gf / lim.peak_gflops,
                cached ? "  (weight in cache)" : gemv ? "  (streamed from memory)" : "");
  }
#else
  (void)lim;
#endif
}

#ifdef BLOCKSCOPE_WASM_RELAXED
constexpr const char* kRelaxedHeader = "   relaxed  relaxed/simd";
#else
constexpr const char* kRelaxedHeader = "";
#endif

void main_table() {
  const Shape shapes[] = {{"GEMM", 64, 768, 768, true},
                          {"GEMM", 64, 768, 3072, true},
                          {"GEMV", 1, 768, 2304, true},
                          {"GEMV", 1, 768, 50257, false}};
  std::printf("%-4s %-14s %9s %9s %9s %13s %15s %14s%s\n", "op", "N x C x OC", "generic", "Eigen", "simd128",
              "simd/Eigen", "simd/generic", "max|simd-Eig|", kRelaxedHeader);
  for (const Shape& s : shapes) {
    Buffers bf(s);
    const double g = gflops(generic_linear, s, bf);
    const double e = gflops(eigen_linear, s, bf);
    const std::vector<float> y_eigen = bf.y;
#ifdef __wasm_simd128__
    const double v = gflops(simd128_linear, s, bf);
    const double dev = max_abs_diff(bf.y, y_eigen);
#else
    const double v = NAN, dev = NAN;
#endif
    char dims[32];
    std::snprintf(dims, sizeof dims, "%lldx%lldx%lld", static_cast<long long>(s.N), static_cast<long long>(s.C),
                  static_cast<long long>(s.OC));
    std::printf("%-4s %-14s %9.1f %9.1f %9.1f %12.2fx %14.2fx %14.2g", s.name, dims, g, e, v, v / e, v / g, dev);
#ifdef BLOCKSCOPE_WASM_RELAXED
    const double r = gflops(relaxed_linear, s, bf);
    std::printf(" %9.1f %13.2fx", r, r / v);
#endif
    std::printf("\n");
  }
}

// ---- linear_backward: dinp (N, C) += dout (N, OC) @ weight (OC, C) and dweight (OC, C) += dout^T @ inp ----
using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using MapR = Eigen::Map<RowMatrix>;
using MapC = Eigen::Map<const RowMatrix>;

// One gradient of one backward implementation: grad += product(dout, inp, weight).
using GradFn = void (*)(float* grad, const float* dout, const float* inp, const float* weight, int64_t N,
                        int64_t C, int64_t OC);
void eigen_dinp(float* g, const float* dout, const float*, const float* w, int64_t N, int64_t C, int64_t OC) {
  MapR(g, N, C).noalias() += MapC(dout, N, OC) * MapC(w, OC, C);
}
void eigen_dweight(float* g, const float* dout, const float* x, const float*, int64_t N, int64_t C, int64_t OC) {
  MapR(g, OC, C).noalias() += MapC(dout, N, OC).transpose() * MapC(x, N, C);
}
template <const LinearBackwardKernels& K>
void kernels_dinp(float* g, const float* dout, const float* x, const float* w, int64_t N, int64_t C, int64_t OC) {
  f32_linear_backward(K, g, nullptr, nullptr, dout, x, w, N, C, OC);
}
template <const LinearBackwardKernels& K>
void kernels_dweight(float* g, const float* dout, const float* x, const float* w, int64_t N, int64_t C,
                     int64_t OC) {
  f32_linear_backward(K, nullptr, g, nullptr, dout, x, w, N, C, OC);
}

struct BackwardBuffers {
  std::vector<float> dout, x, w, g;
  BackwardBuffers(const Shape& s, bool dinp)
      : dout(uniform_vec(s.N * s.OC, 4)), x(uniform_vec(s.N * s.C, 1)), w(uniform_vec(s.OC * s.C, 2)),
        g(static_cast<size_t>(dinp ? s.N * s.C : s.OC * s.C), 0.0f) {}
  void call(GradFn fn, const Shape& s) { fn(g.data(), dout.data(), x.data(), w.data(), s.N, s.C, s.OC); }
};

// GFLOP/s of fn (2 N C OC per gradient), and in `once` the gradient after one call onto zeros.
double backward_gflops(GradFn fn, const Shape& s, bool dinp, std::vector<float>& once) {
  BackwardBuffers bf(s, dinp);
  bf.call(fn, s);
  once = bf.g;
  return 2.0 * s.N * s.C * s.OC / best_seconds([&] { bf.call(fn, s); }) * 1e-9;
}

// Training shapes: N = B * T = 16 * 128 rows; C -> OC of attention (qkv 384, out 128), MLP (512 / 128) and
// an LM head over a 256-symbol vocabulary.
void backward_table() {
  const Shape shapes[] = {{"", 2048, 128, 128, false}, {"", 2048, 128, 384, false}, {"", 2048, 128, 512, false},
                          {"", 2048, 512, 128, false}, {"", 2048, 128, 256, false}};
  std::printf("\nlinear_backward kernels, GFLOP/s (2 N C OC per gradient; accumulating, +=)\n");
  std::printf("%-8s %-14s %9s %9s %9s %13s %15s %14s%s\n", "grad", "N x C x OC", "generic", "Eigen", "simd128",
              "simd/Eigen", "simd/generic", "max|simd-Eig|", kRelaxedHeader);
  for (const Shape& s : shapes)
    for (bool dinp : {true, false}) {
      std::vector<float> y_generic, y_eigen, y_simd;
      const double g = backward_gflops(dinp ? kernels_dinp<kLinearBackwardGeneric>
                                            : kernels_dweight<kLinearBackwardGeneric>, s, dinp, y_generic);
      const double e = backward_gflops(dinp ? eigen_dinp : eigen_dweight, s, dinp, y_eigen);
#ifdef __wasm_simd128__
      const double v = backward_gflops(dinp ? kernels_dinp<kLinearBackwardSimd128>
                                            : kernels_dweight<kLinearBackwardSimd128>, s, dinp, y_simd);
      const double dev = max_abs_diff(y_simd, y_eigen);
#else
      const double v = NAN, dev = max_abs_diff(y_generic, y_eigen);
#endif
      char dims[32];
      std::snprintf(dims, sizeof dims, "%lldx%lldx%lld", static_cast<long long>(s.N),
                    static_cast<long long>(s.C), static_cast<long long>(s.OC));
      std::printf("%-8s %-14s %9.1f %9.1f %9.1f %12.2fx %14.2fx %14.2g", dinp ? "dinp" : "dweight", dims, g,
                  e, v, v / e, v / g, dev);
#ifdef BLOCKSCOPE_WASM_RELAXED
      std::vector<float> y_relaxed;
      const double r = backward_gflops(dinp ? kernels_dinp<kLinearBackwardRelaxed>
                                            : kernels_dweight<kLinearBackwardRelaxed>, s, dinp, y_relaxed);
      std::printf(" %9.1f %13.2fx", r, r / v);
#endif
      std::printf("\n");
    }
}

#ifdef __wasm_simd128__
// Where the packed GEMM overtakes row-by-row GEMV (sets kLinearSimd128.gemv_below_n), with the weight in cache
// (768 x 2304, 7 MB) and streamed from memory (768 x 50257, 154 MB).
void crossover_table() {
  std::printf("\nsimd128 GEMV per row vs packed GEMM, GFLOP/s\n%3s %14s %14s %14s %14s\n", "N", "GEMV 2304",
              "GEMM 2304", "GEMV 50257", "GEMM 50257");
  for (int64_t N = 1; N <= 8; ++N) {
    std::printf("%3lld", static_cast<long long>(N));
    for (int64_t OC : {2304, 50257}) {
      const Shape s = {"", N, 768, OC, true};
      Buffers bf(s);
      std::printf(" %14.1f %14.1f", gflops(simd128_gemv_only, s, bf), gflops(simd128_gemm_only, s, bf));
    }
    std::printf("\n");
  }
}
#endif
}  // namespace

int main() {
  float sink = 0.0f;
  const bench::Limits lim = bench::measure_limits(&sink);
  std::printf("linear_forward kernels, GFLOP/s (best of >= 5 calls after warm-up)\n");
  main_table();
  limits_table(lim);
#ifdef __wasm_simd128__
  crossover_table();
#endif
  backward_table();
  return sink == 12345.0f ? 1 : 0;  // keeps the limit loops' sums alive
}
