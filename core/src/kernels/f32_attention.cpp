// Attention kernels for a few query rows against many cached keys (token-by-token decoding): one query's
// scores against key rows read in place from the KV cache (rows `stride` floats apart, no per-head copy), and
// the softmax-weighted sum of value rows. Each SIMD128 kernel has a generic twin summing in the same order.
#include "kernels/kernels.hpp"

#include "kernels/simd128.hpp"

namespace blockscope::kernels {

namespace {
// dot(q, k) over hs: four lanes (lane j holds the terms i = j mod 4 up to hs & ~3), lanes added as
// (l0 + l2) + (l1 + l3), then the scalar tail. The order of simd128::hsum4 for one row.
float dot_generic(const float* q, const float* k, int64_t hs) {
  const int64_t hs4 = hs & ~int64_t{3};
  float lane[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  int64_t i = 0;
  for (; i < hs4; i += 4)
    for (int j = 0; j < 4; ++j) lane[j] += q[i + j] * k[i + j];
  float sum = (lane[0] + lane[2]) + (lane[1] + lane[3]);
  for (; i < hs; ++i) sum += q[i] * k[i];
  return sum;
}
}  // namespace

void f32_attention_scores__generic(float* scores, const float* q, const float* k, int64_t stride, int64_t hs,
                                   int64_t S) {
  for (int64_t s = 0; s < S; ++s) scores[s] = dot_generic(q, k + s * stride, hs);
}

// Value rows split by parity: even rows summed into one partial sum, odd rows into another, each from 0 in
// row order; out = even + odd. (The SIMD128 kernel keeps the two as independent accumulator sets.) Columns go
// in blocks of 64 with rows in the outer loop, so each value row is read contiguously (the compiler vectorizes
// the column loops natively) rather than one strided pass over all rows per column.
void f32_attention_weighted_sum__generic(float* out, const float* p, const float* v, int64_t stride,
                                         int64_t hs, int64_t S) {
  constexpr int64_t kBlock = 64;
  for (int64_t j0 = 0; j0 < hs; j0 += kBlock) {
    const int64_t nj = hs - j0 < kBlock ? hs - j0 : kBlock;
    float even[kBlock] = {}, odd[kBlock] = {};
    const float* vr = v + j0;
    int64_t s = 0;
    for (; s + 1 < S; s += 2, vr += 2 * stride) {
      const float pe = p[s], po = p[s + 1];
      for (int64_t j = 0; j < nj; ++j) even[j] += pe * vr[j];
      for (int64_t j = 0; j < nj; ++j) odd[j] += po * vr[stride + j];
    }
    if (s < S)
      for (int64_t j = 0; j < nj; ++j) even[j] += p[s] * vr[j];
    for (int64_t j = 0; j < nj; ++j) out[j0 + j] = even[j] + odd[j];
  }
}

#ifdef __wasm_simd128__
namespace {
using namespace simd128;

// Scalar tail of a dot product (terms hs & ~3 .. hs - 1), added after the vector lanes as dot_generic does.
inline float dot_tail(float sum, const float* q, const float* k, int64_t from, int64_t hs) {
  for (int64_t i = from; i < hs; ++i) sum += q[i] * k[i];
  return sum;
}
}  // namespace

void SIMD_KERNEL(f32_attention_scores)(float* scores, const float* q, const float* k, int64_t stride,
                                       int64_t hs, int64_t S) {
  const int64_t hs4 = hs & ~(kW - 1);
  int64_t s = 0;
  // Four keys at a time: the query's vector loaded once per step, one accumulator per key.
  for (; s + 4 <= S; s += 4) {
    const float *k0 = k + s * stride, *k1 = k0 + stride, *k2 = k1 + stride, *k3 = k2 + stride;
    vf a0 = zero(), a1 = zero(), a2 = zero(), a3 = zero();
    for (int64_t i = 0; i < hs4; i += kW) {
      const vf qv = load(q + i);
      a0 = muladd(a0, qv, load(k0 + i));
      a1 = muladd(a1, qv, load(k1 + i));
      a2 = muladd(a2, qv, load(k2 + i));
      a3 = muladd(a3, qv, load(k3 + i));
    }
    const vf d = hsum4(a0, a1, a2, a3);
    if (hs4 == hs) {
      store(scores + s, d);
    } else {  // lane by lane, in registers: the relaxed-SIMD kernel module has no stack of its own
      scores[s] = dot_tail(wasm_f32x4_extract_lane(d, 0), q, k0, hs4, hs);
      scores[s + 1] = dot_tail(wasm_f32x4_extract_lane(d, 1), q, k1, hs4, hs);
      scores[s + 2] = dot_tail(wasm_f32x4_extract_lane(d, 2), q, k2, hs4, hs);
      scores[s + 3] = dot_tail(wasm_f32x4_extract_lane(d, 3), q, k3, hs4, hs);
    }
  }
  for (; s < S; ++s) {
    const float* kr = k + s * stride;
    vf a = zero();
    for (int64_t i = 0; i < hs4; i += kW) a = muladd(a, load(q + i), load(kr + i));
    const vf h = add(a, wasm_i32x4_shuffle(a, a, 2, 3, 0, 1));
    scores[s] = dot_tail(wasm_f32x4_extract_lane(h, 0) + wasm_f32x4_extract_lane(h, 1), q, kr, hs4, hs);
  }
}

void SIMD_KERNEL(f32_attention_weighted_sum)(float* out, const float* p, const float* v, int64_t stride,
                                             int64_t hs, int64_t S) {
  int64_t j = 0;
  // 16 columns at a time: even and odd value rows into two sets of four accumulators (eight independent
  // dependency chains), added at the end.
  for (; j + 16 <= hs; j += 16) {
    vf e0 = zero(), e1 = zero(), e2 = zero(), e3 = zero();
    vf o0 = zero(), o1 = zero(), o2 = zero(), o3 = zero();
    const float* vr = v + j;
    int64_t s = 0;
    for (; s + 1 < S; s += 2, vr += 2 * stride) {
      const vf pe = load_splat(p + s), po = load_splat(p + s + 1);
      const float* vo = vr + stride;
      e0 = muladd(e0, pe, load(vr)), e1 = muladd(e1, pe, load(vr + 4));
      e2 = muladd(e2, pe, load(vr + 8)), e3 = muladd(e3, pe, load(vr + 12));
      o0 = muladd(o0, po, load(vo)), o1 = muladd(o1, po, load(vo + 4));
      o2 = muladd(o2, po, load(vo + 8)), o3 = muladd(o3, po, load(vo + 12));
    }
    if (s < S) {
      const vf pe = load_splat(p + s);
      e0 = muladd(e0, pe, load(vr)), e1 = muladd(e1, pe, load(vr + 4));
      e2 = muladd(e2, pe, load(vr + 8)), e3 = muladd(e3, pe, load(vr + 12));
    }
    store(out + j, add(e0, o0)), store(out + j + 4, add(e1, o1));
    store(out + j + 8, add(e2, o2)), store(out + j + 12, add(e3, o3));
  }
  for (; j + 4 <= hs; j += 4) {
    vf e = zero(), o = zero();
    int64_t s = 0;
    for (; s + 1 < S; s += 2) {
      e = muladd(e, load_splat(p + s), load(v + s * stride + j));
      o = muladd(o, load_splat(p + s + 1), load(v + (s + 1) * stride + j));
    }
    if (s < S) e = muladd(e, load_splat(p + s), load(v + s * stride + j));
    store(out + j, add(e, o));
  }
  // The last hs % 4 columns one at a time, summed as the generic kernel sums them (in scalars rather than by a call
  // to it, whose 64-column blocks live on the stack: the relaxed-SIMD kernel module has no stack of its own).
  for (; j < hs; ++j) {
    float e = 0.0f, o = 0.0f;
    int64_t s = 0;
    for (; s + 1 < S; s += 2) {
      e += p[s] * v[s * stride + j];
      o += p[s + 1] * v[(s + 1) * stride + j];
    }
    if (s < S) e += p[s] * v[s * stride + j];
    out[j] = e + o;
  }
}
#endif

}  // namespace blockscope::kernels
