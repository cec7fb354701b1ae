// The machine's limits for the kernels (bench/limits.hpp): single-thread read bandwidth at sizes from L1 to
// memory, from one sequential stream and from two, and the 128-bit SIMD mul + add peak without FMA. Built
// natively and as a wasm program (SIMD128), so each is measured where the kernels run:
//   build/release/bench/blockscope_bench_bandwidth
//   node build/wasm-simd/bench/blockscope_bench_bandwidth.js
// A benchmark that prints figures, not a test.
#include <cstdio>

#include "limits.hpp"

using namespace blockscope::bench;

int main() {
  float sink = 0.0f;
#ifdef __wasm_simd128__
  std::printf("WebAssembly SIMD128, single thread\n");
#else
  std::printf("native, single thread\n");
#endif
  std::printf("%-12s %12s %12s\n", "read size", "1 stream", "2 streams");
  for (size_t kib : {16, 256, 2048, 16384, 262144}) {
    const double one = read_bandwidth_gbs(kib << 10, &sink, 1), two = read_bandwidth_gbs(kib << 10, &sink, 2);
    std::printf("%8zu KiB %9.1f GB/s %7.1f GB/s%s\n", kib, one, two,
                kib == 262144 ? "   <- memory: the faster is the decode limit" : "");
  }
  const double peak = simd128_peak_gflops(&sink);
  std::printf("\n128-bit SIMD mul + add peak (no FMA): %.1f GFLOP/s\n", peak);
  return sink == 12345.0f ? 1 : 0;  // uses the sums so no loop is optimized away
}
