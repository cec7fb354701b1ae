// The machine's limits the kernel benchmarks are measured against (bench_bandwidth prints them, bench_kernels
// prints each kernel as a % of them): single-thread read bandwidth from memory, and the peak of 128-bit SIMD
// float mul + add without FMA (what WebAssembly SIMD128 offers). Measured, not assumed; header-only.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <ctime>
#include <vector>

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
// The Node process's CPU time (user + system), in seconds.
EM_JS(double, blockscope_bench_process_cpu_seconds, (), {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
});
#endif

namespace blockscope::bench {

// Four float lanes in GCC/Clang vector extensions: f32x4 in wasm SIMD128, an SSE/AVX register natively.
typedef float f32x4 __attribute__((vector_size(16)));

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The process's CPU time in seconds. The benchmarks time with it, not the wall clock: on a machine shared with
// other jobs a single-threaded kernel is often descheduled, which wall time counts and CPU time does not.
inline double cpu_seconds() {
#ifdef __EMSCRIPTEN__
  return blockscope_bench_process_cpu_seconds();
#else
  return static_cast<double>(std::clock()) / CLOCKS_PER_SEC;
#endif
}

// Sums n floats (n a multiple of 32) with eight independent vector accumulators, so the adds never wait for
// each other and the loop runs at the speed the loads arrive. Returns the sum (keeps the loop alive).
inline float read_sum(const float* p, size_t n) {
  f32x4 a[8] = {};
  for (size_t i = 0; i < n; i += 32)
    for (int j = 0; j < 8; ++j) {
      f32x4 v;
      __builtin_memcpy(&v, p + i + 4 * j, sizeof v);
      a[j] += v;
    }
  f32x4 s = ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]));
  return s[0] + s[1] + s[2] + s[3];
}

// read_sum over two regions of n floats in lockstep: two sequential streams, four accumulators each. One thread
// reads memory faster from two streams than from one (the hardware prefetcher runs ahead on each), which is how
// the decoding GEMV reads its weights.
inline float read_sum2(const float* p, const float* q, size_t n) {
  const auto at = [](const float* x) {
    f32x4 v;
    __builtin_memcpy(&v, x, sizeof v);
    return v;
  };
  f32x4 a0 = {}, a1 = {}, a2 = {}, a3 = {}, b0 = {}, b1 = {}, b2 = {}, b3 = {};
  for (size_t i = 0; i < n; i += 16) {
    a0 += at(p + i), b0 += at(q + i), a1 += at(p + i + 4), b1 += at(q + i + 4);
    a2 += at(p + i + 8), b2 += at(q + i + 8), a3 += at(p + i + 12), b3 += at(q + i + 12);
  }
  f32x4 s = ((a0 + a1) + (a2 + a3)) + ((b0 + b1) + (b2 + b3));
  return s[0] + s[1] + s[2] + s[3];
}

// GB/s of reading a buffer of `bytes` (default 256 MiB, far beyond the caches: memory bandwidth; small sizes
// measure a cache level) as one sequential stream (read_sum) or as two (read_sum2: chunk c with the chunk half the
// buffer away). The buffer is read in chunks of at most 4 MiB, each timed on its own, and each chunk's best time
// over >= 5 passes (and >= 0.5 s) counts: on a shared machine a pass is often preempted, a given chunk rarely in
// every pass. Chunks of a 256 MiB buffer still come from memory each pass.
inline double read_bandwidth_gbs(size_t bytes = size_t{256} << 20, float* sink = nullptr, int streams = 1) {
  const size_t n = bytes / sizeof(float) / 32 * 32;
  const size_t chunk = std::min<size_t>(n / streams, (size_t{4} << 20) / sizeof(float)) / 32 * 32;
  const size_t chunks = n / chunk / streams;  // timed units: one chunk, or a pair of chunks half the buffer apart
  const size_t half = chunks * chunk;
  std::vector<float> buf(n, 1.0f);
  std::vector<double> best(chunks, 1e30);
  const size_t reps = std::max<size_t>(1, (size_t{1} << 20) / (streams * chunk * sizeof(float)));  // >= 1 MiB a timing
  float keep = read_sum(buf.data(), n);
  const auto t_all = std::chrono::steady_clock::now();
  for (int i = 0; i < 5 || seconds_since(t_all) < 0.5; ++i)
    for (size_t c = 0; c < chunks; ++c) {
      const float* p = buf.data() + c * chunk;
      const double t0 = cpu_seconds();
      for (size_t r = 0; r < reps; ++r) keep += streams == 1 ? read_sum(p, chunk) : read_sum2(p, p + half, chunk);
      best[c] = std::min(best[c], (cpu_seconds() - t0) / static_cast<double>(reps));
    }
  if (sink) *sink = keep;
  double total = 0.0;
  for (const double t : best) total += t;
  return static_cast<double>(streams * chunks * chunk * sizeof(float)) / total * 1e-9;
}

// iters steps of acc[j] += v * c_j for K accumulators: two vectors v loaded per step from a 16-step cycle of an
// L1-resident buffer (so the compiler cannot hoist the products), each multiplied by loop-invariant factors:
// K independent add chains and few loads, the shape of a GEMM micro-kernel's inner loop. (One load per
// product measured ~30% lower in V8: the loads, not the float units, were then the limit.) A function of its
// own: V8 has no on-stack replacement for wasm, so a loop runs in the tier its function was entered in.
template <int K>
__attribute__((noinline)) void mul_add_accumulate(f32x4* acc, const float* buf, f32x4 c, int64_t iters) {
  f32x4 ar[K];
  const f32x4 cs[4] = {c, c * 0.5f, c * 0.25f, c * 0.125f};
  for (int j = 0; j < K; ++j) ar[j] = acc[j];
  for (int64_t i = 0; i < iters; ++i) {
    const float* p = buf + (i & 15) * 8;
    f32x4 v0, v1;
    __builtin_memcpy(&v0, p, sizeof v0);
    __builtin_memcpy(&v1, p + 4, sizeof v1);
    for (int j = 0; j < K; ++j) ar[j] = ar[j] + ((j & 1) ? v1 : v0) * cs[(j >> 1) & 3];
  }
  for (int j = 0; j < K; ++j) acc[j] = ar[j];
}

// Peak GFLOP/s of 128-bit float mul + add without FMA over mul_add_accumulate<K>: 8 FLOP per accumulator per
// step, best of >= 10 calls and 0.3 s after 0.3 s of untimed calls.
template <int K>
double mul_add_gflops(float* sink) {
  volatile float cv = 0.5f;  // volatile: the compiler must not fold the product
  const f32x4 c = {cv, cv, cv, cv};
  std::vector<float> buf(16 * 8);
  for (size_t i = 0; i < buf.size(); ++i) buf[i] = static_cast<float>(i % 7) * 0.125f;
  f32x4 acc[K];
  for (int j = 0; j < K; ++j) acc[j] = f32x4{};
  constexpr int64_t kIters = 1 << 18;
  const auto t_warm = std::chrono::steady_clock::now();  // untimed: lets V8 tier the function up
  while (seconds_since(t_warm) < 0.3) mul_add_accumulate<K>(acc, buf.data(), c, kIters);
  double best = 1e30;
  const auto t_all = std::chrono::steady_clock::now();
  for (int r = 0; r < 10 || seconds_since(t_all) < 0.3; ++r) {
    const double t0 = cpu_seconds();
    mul_add_accumulate<K>(acc, buf.data(), c, kIters);
    best = std::min(best, cpu_seconds() - t0);
  }
  f32x4 s = {};
  for (int j = 0; j < K; ++j) s += acc[j];
  *sink += s[0] + s[1] + s[2] + s[3];
  return 8.0 * K * kIters / best * 1e-9;
}

// The best of 4, 8 and 12 accumulators: enough to cover the add latency, few enough that the wasm engine
// keeps every vector in a register.
inline double simd128_peak_gflops(float* sink) {
  return std::max({mul_add_gflops<4>(sink), mul_add_gflops<8>(sink), mul_add_gflops<12>(sink)});
}

struct Limits {
  double read_gbs;     // single-thread read bandwidth from memory, GB/s: the faster of one and two streams
  double peak_gflops;  // 128-bit SIMD mul + add peak (no FMA), GFLOP/s
};

inline Limits measure_limits(float* sink) {
  const size_t memory = size_t{256} << 20;
  return {std::max(read_bandwidth_gbs(memory, sink, 1), read_bandwidth_gbs(memory, sink, 2)),
          simd128_peak_gflops(sink)};
}

}  // namespace blockscope::bench
