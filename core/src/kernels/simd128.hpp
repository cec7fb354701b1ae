// Mapping header for WebAssembly SIMD128: the few wasm_simd128.h operations the kernels use, under short
// names. Only for -msimd128 builds. The same kernel sources compiled with -mrelaxed-simd (clang 16, the relaxed-SIMD
// kernel module; Emscripten 3.1.6's clang 14 emits a pre-standard opcode) get muladd as one f32x4.relaxed_madd and
// the kernel names SIMD_KERNEL(f32_gemm_4x8) = f32_gemm_4x8__relaxed instead of f32_gemm_4x8__simd128.
#pragma once

#ifdef __wasm_simd128__
#include <wasm_simd128.h>

// The name of a kernel whose body uses muladd (kernels.hpp declares both variants).
#ifdef __wasm_relaxed_simd__
#define SIMD_KERNEL(name) name##__relaxed
#else
#define SIMD_KERNEL(name) name##__simd128
#endif

#include <cstdint>

namespace blockscope::kernels::simd128 {

using vf = v128_t;  // four float32 lanes
inline constexpr int64_t kW = 4;

inline vf zero() { return wasm_f32x4_splat(0.0f); }
inline vf load(const float* p) { return wasm_v128_load(p); }
inline vf load_splat(const float* p) { return wasm_v128_load32_splat(p); }
inline void store(float* p, vf v) { wasm_v128_store(p, v); }
inline vf add(vf a, vf b) { return wasm_f32x4_add(a, b); }

#ifdef __wasm_relaxed_simd__
// acc + a * b in one f32x4.relaxed_madd: the engine may fuse it (rounded once, an FMA where the CPU has one) or not
// (rounded twice), so results can differ from the SIMD128 kernels' in the last bits, and between machines.
inline vf muladd(vf acc, vf a, vf b) { return __builtin_wasm_relaxed_madd_f32x4(a, b, acc); }
#else
// acc + a * b, rounded twice (f32x4.mul then f32x4.add): the same bits on every engine.
inline vf muladd(vf acc, vf a, vf b) { return wasm_f32x4_add(acc, wasm_f32x4_mul(a, b)); }
#endif

// [sum(a), sum(b), sum(c), sum(d)]: the horizontal sums of four vectors, by a transpose-and-add.
inline vf hsum4(vf a, vf b, vf c, vf d) {
  const vf ab = add(wasm_i32x4_shuffle(a, b, 0, 4, 1, 5), wasm_i32x4_shuffle(a, b, 2, 6, 3, 7));
  const vf cd = add(wasm_i32x4_shuffle(c, d, 0, 4, 1, 5), wasm_i32x4_shuffle(c, d, 2, 6, 3, 7));
  return add(wasm_i32x4_shuffle(ab, cd, 0, 1, 4, 5), wasm_i32x4_shuffle(ab, cd, 2, 3, 6, 7));
}

// Transposes the 4x4 matrix held in rows r0..r3 in place: afterwards r_i holds column i.
inline void transpose4(vf& r0, vf& r1, vf& r2, vf& r3) {
  const vf a = wasm_i32x4_shuffle(r0, r1, 0, 4, 1, 5), b = wasm_i32x4_shuffle(r0, r1, 2, 6, 3, 7);
  const vf c = wasm_i32x4_shuffle(r2, r3, 0, 4, 1, 5), d = wasm_i32x4_shuffle(r2, r3, 2, 6, 3, 7);
  r0 = wasm_i32x4_shuffle(a, c, 0, 1, 4, 5);
  r1 = wasm_i32x4_shuffle(a, c, 2, 3, 6, 7);
  r2 = wasm_i32x4_shuffle(b, d, 0, 1, 4, 5);
  r3 = wasm_i32x4_shuffle(b, d, 2, 3, 6, 7);
}

// Stores the first n (0..8) lanes of the eight held in lo:hi; memory past p[n - 1] is left alone.
inline void store_n(float* p, vf lo, vf hi, int64_t n) {
  if (n == 8) {
    store(p, lo);
    store(p + 4, hi);
    return;
  }
  if (n & 4) {
    store(p, lo);
    lo = hi;
    p += 4;
  }
  if (n & 2) {
    wasm_v128_store64_lane(p, lo, 0);
    lo = wasm_i64x2_shuffle(lo, lo, 1, 1);
    p += 2;
  }
  if (n & 1) wasm_v128_store32_lane(p, lo, 0);
}

}  // namespace blockscope::kernels::simd128
#endif
