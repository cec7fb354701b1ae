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
// row order; out = even + odd. (The SIMD128 kernel keeps the two as independent accumulator sets.)
void f32_attention_weighted_sum__generic(float* out, const float* p, const float* v, int64_t stride,
                                         int64_t hs, int64_t S) {
  for (int64_t j = 0; j < hs; ++j) {
    float even = 0.0f, odd = 0.0f;
    int64_t s = 0;
    for (; s + 1 < S; s += 2) {
      even += p[s] * v[s * stride + j];
      odd += p[s + 1] * v[(s + 1) * stride + j];
    }
    if (s < S) even += p[s] * v[s * stride + j];
    out[j] = even + odd;
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

void f32_attention_scores__simd128(float* scores, const float* q, const float* k, int64_t stride, int64_t hs,
                                   int64_t S) {
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
    vf d = hsum4(a0, a1, a2, a3);
    if (hs4 != hs) {
      float r[4];
      store(r, d);
      r[0] = dot_tail(r[0], q, k0, hs4, hs);
      r[1] = dot_tail(r[1], q, k1, hs4, hs);
      r[2] = dot_tail(r[2], q, k2, hs4, hs);
      r[3] = dot_tail(r[3], q, k3, hs4, hs);
      d = load(r);
    }
    store(scores + s, d);
  }
  for (; s < S; ++s) {
    const float* kr = k + s * stride;
    vf a = zero();
    for (int64_t i = 0; i < hs4; i += kW) a = muladd(a, load(q + i), load(kr + i));
    const vf h = add(a, wasm_i32x4_shuffle(a, a, 2, 3, 0, 1));
    scores[s] = dot_tail(wasm_f32x4_extract_lane(h, 0) + wasm_f32x4_extract_lane(h, 1), q, kr, hs4, hs);
  }
}

void f32_attention_weighted_sum__simd128(float* out, const float* p, const float* v, int64_t stride,
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
  if (j < hs) f32_attention_weighted_sum__generic(out + j, p, v + j, stride, hs - j, S);
}
#endif

}  // namespace blockscope::kernels
