// Portable implementations of the numeric kernels in ops.hpp. Matrix products go through the build's kernels
// (kernels/dispatch.hpp: SIMD128 in wasm, Eigen natively); everything else is plain loops the compiler vectorizes.
#include "blockscope/ops.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "blockscope/error.hpp"
#include "blockscope/tensor.hpp"
#include "ops_internal.hpp"
#include "fast_math.hpp"
#include "kernels/dispatch.hpp"

namespace blockscope {

using namespace detail;  // GELU constants, head scratch (ops_internal.hpp)

const char* kernel_isa() { return kernels::active().isa; }

const char* activation_name(Activation a) {
  switch (a) {
    case Activation::GeluTanh: return "gelu_tanh";
    case Activation::GeluErf: return "gelu_erf";
    case Activation::Relu: return "relu";
    case Activation::Tanh: return "tanh";
  }
  return "unknown";
}

Activation parse_activation(const char* name) {
  const std::string s = name ? name : "";
  if (s == "gelu_tanh" || s == "gelu") return Activation::GeluTanh;
  if (s == "gelu_erf") return Activation::GeluErf;
  if (s == "relu") return Activation::Relu;
  if (s == "tanh") return Activation::Tanh;
  throw Error("unknown activation '" + s + "' (expected gelu_tanh, gelu_erf, relu or tanh)");
}

namespace {
// Two passes (mean, then squared deviations) accumulated in double: exact enough when |mean| >> std, e.g.
// values near 1000 with std 0.01, where float32's E[x^2] - E[x]^2 even turns negative.
void mean_var_f64(double* mean, double* var, const float* x, int64_t C) {
  double m = 0.0;
  for (int64_t c = 0; c < C; ++c) m += x[c];
  m /= static_cast<double>(C);
  double v = 0.0;
  for (int64_t c = 0; c < C; ++c) {
    const double d = x[c] - m;
    v += d * d;
  }
  *mean = m;
  *var = v / static_cast<double>(C);
}
}  // namespace

void row_mean_var(float* mean, float* var, const float* inp, int64_t N, int64_t C) {
  for (int64_t i = 0; i < N; ++i) {
    double m = 0.0, v = 0.0;
    mean_var_f64(&m, &v, inp + i * C, C);
    mean[i] = static_cast<float>(m);
    var[i] = static_cast<float>(v);
  }
}

void layernorm_forward(float* out, float* mean, float* rstd, const float* inp, const float* weight,
                       const float* bias, int64_t N, int64_t C, float eps) {
  for (int64_t i = 0; i < N; ++i) {
    const float* x = inp + i * C;
    double m = 0.0, v = 0.0;
    mean_var_f64(&m, &v, x, C);
    const float s = static_cast<float>(1.0 / std::sqrt(v + static_cast<double>(eps)));
    float* o = out + i * C;
    // x - mean in double: the float32-rounded mean would be off by up to half an ulp of |mean|.
    for (int64_t c = 0; c < C; ++c) o[c] = static_cast<float>(x[c] - m) * s * weight[c] + bias[c];
    if (mean) mean[i] = static_cast<float>(m);
    if (rstd) rstd[i] = s;
  }
}

void row_l2_norm(float* norm, const float* inp, int64_t N, int64_t C) {
  for (int64_t i = 0; i < N; ++i) {
    double s = 0.0;
    for (int64_t c = 0; c < C; ++c) s += static_cast<double>(inp[i * C + c]) * inp[i * C + c];
    norm[i] = static_cast<float>(std::sqrt(s));
  }
}

void activation_forward(Activation kind, float* out, const float* inp, int64_t n) {
  switch (kind) {
    case Activation::GeluTanh:
      for (int64_t i = 0; i < n; ++i) {
        const float x = inp[i];
        out[i] = 0.5f * x * (1.0f + tanh_f32(kSqrt2OverPi * (x + kGeluCoeff * x * x * x)));
      }
      break;
    case Activation::GeluErf:
      for (int64_t i = 0; i < n; ++i) {
        const float x = inp[i];
        out[i] = 0.5f * x * (1.0f + std::erf(x * kInvSqrt2));
      }
      break;
    case Activation::Relu:
      // x > 0 ? x : 0 keeps NaN as NaN like torch.relu.
      for (int64_t i = 0; i < n; ++i) out[i] = inp[i] > 0.0f ? inp[i] : (std::isnan(inp[i]) ? inp[i] : 0.0f);
      break;
    case Activation::Tanh:
      for (int64_t i = 0; i < n; ++i) out[i] = tanh_f32(inp[i]);
      break;
  }
}

void activation_derivative(Activation kind, float* out, const float* inp, int64_t n) {
  switch (kind) {
    case Activation::GeluTanh:
      for (int64_t i = 0; i < n; ++i) {
        const float x = inp[i];
        const float u = kSqrt2OverPi * (x + kGeluCoeff * x * x * x);
        const float t = tanh_f32(u);
        const float du = kSqrt2OverPi * (1.0f + 3.0f * kGeluCoeff * x * x);
        out[i] = 0.5f * (1.0f + t) + 0.5f * x * (1.0f - t * t) * du;
      }
      break;
    case Activation::GeluErf:
      for (int64_t i = 0; i < n; ++i) {
        const float x = inp[i];
        out[i] = 0.5f * (1.0f + std::erf(x * kInvSqrt2)) + x * kInvSqrt2Pi * std::exp(-0.5f * x * x);
      }
      break;
    case Activation::Relu:
      for (int64_t i = 0; i < n; ++i) out[i] = inp[i] > 0.0f ? 1.0f : 0.0f;
      break;
    case Activation::Tanh:
      for (int64_t i = 0; i < n; ++i) {
        const float t = tanh_f32(inp[i]);
        out[i] = 1.0f - t * t;
      }
      break;
  }
}

void linear_forward(float* out, const float* inp, const float* weight, const float* bias, int64_t N,
                    int64_t C, int64_t OC) {
  kernels::active().linear(out, inp, weight, bias, N, C, OC);
}

void softmax_rows(float* x, int64_t N, int64_t n) {
  for (int64_t i = 0; i < N; ++i) {
    float* r = x + i * n;
    const float mx = kernels::active().row_max(r, n);
    float sum = 0.0f;
    for (int64_t j = 0; j < n; ++j) r[j] = exp_f32(r[j] - mx);
    for (int64_t j = 0; j < n; ++j) sum += r[j];
    const float inv = 1.0f / sum;
    for (int64_t j = 0; j < n; ++j) r[j] *= inv;
  }
}

float* detail::head_scratch(size_t n) {
  thread_local FloatBuffer buf;
  if (buf.size() < n) buf.resize(n);
  return buf.data();
}

void detail::gather_head(float* dst, const float* src, int64_t rows, int64_t hs, int64_t stride) {
  for (int64_t r = 0; r < rows; ++r) std::copy(src + r * stride, src + r * stride + hs, dst + r * hs);
}

namespace {
// attention_forward for a few query rows without dropout (decoding), where the build has kernels for it: each
// query row against the keys and values read in place, C apart, with no per-head copies and no packing. The
// same formulas as the blocked path below, so the two agree up to the rounding of their sums.
void attention_forward_rows(const kernels::Dispatch& kd, float* out, float* att, const float* q, const float* k,
                            const float* v, int64_t B, int64_t T, int64_t S, int64_t kv_rows, int64_t C,
                            int64_t NH, bool causal) {
  const int64_t hs = C / NH;
  const float scale = 1.0f / std::sqrt(static_cast<float>(hs));
  const int64_t offset = S - T;
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < NH; ++h) {
      const float* kh = k + b * kv_rows * C + h * hs;
      const float* vh = v + b * kv_rows * C + h * hs;
      for (int64_t t = 0; t < T; ++t) {
        float* w = att + ((b * NH + h) * T + t) * S;
        const int64_t visible = causal ? offset + t + 1 : S;
        kd.attention_scores(w, q + (b * T + t) * C + h * hs, kh, C, hs, visible);
        for (int64_t s = 0; s < visible; ++s) w[s] *= scale;
        softmax_rows(w, 1, visible);
        std::fill(w + visible, w + S, 0.0f);
        kd.attention_weighted_sum(out + (b * T + t) * C + h * hs, w, vh, C, hs, visible);
      }
    }
}
}  // namespace

void attention_forward(float* out, float* att, const float* q, const float* k, const float* v, int64_t B,
                       int64_t T, int64_t S, int64_t kv_rows, int64_t C, int64_t NH, bool causal,
                       const float* att_mask) {
  const kernels::Dispatch& kd = kernels::active();
  if (T < kAttentionFewRows && att_mask == nullptr && kd.attention_scores) {
    attention_forward_rows(kd, out, att, q, k, v, B, T, S, kv_rows, C, NH, causal);
    return;
  }
  const int64_t hs = C / NH;
  const float scale = 1.0f / std::sqrt(static_cast<float>(hs));
  const int64_t offset = S - T;  // absolute position of query 0
  // Each head's Q, K, V and output as contiguous (rows, hs) copies, so both products run on linear_forward /
  // linear_backward's kernels (SIMD128 in wasm) instead of strided Eigen maps. Causal attention goes by blocks
  // of query rows, each against only the keys it can see: about 5/8 of the full products at T = 128.
  const int64_t R = causal ? std::min<int64_t>(T, kAttentionRowBlock) : T;
  float* Qh = head_scratch(static_cast<size_t>((T + 2 * S + T) * hs + 2 * R * S));
  float* Kh = Qh + T * hs;
  float* Vh = Kh + S * hs;
  float* Oh = Vh + S * hs;
  float* Wb = Oh + T * hs;  // (R, S): one block's scores, then softmax weights
  float* Db = Wb + R * S;   // (R, S): the same after dropout
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t h = 0; h < NH; ++h) {
      gather_head(Qh, q + b * T * C + h * hs, T, hs, C);
      gather_head(Kh, k + b * kv_rows * C + h * hs, S, hs, C);
      gather_head(Vh, v + b * kv_rows * C + h * hs, S, hs, C);
      std::fill(Oh, Oh + T * hs, 0.0f);
      float* A = att + (b * NH + h) * T * S;
      const float* M = att_mask ? att_mask + (b * NH + h) * T * S : nullptr;
      for (int64_t r0 = 0; r0 < T; r0 += R) {
        const int64_t rows = std::min(R, T - r0);
        const int64_t cols = causal ? std::min(S, offset + r0 + rows) : S;  // keys any row of the block sees
        linear_forward(Wb, Qh + r0 * hs, Kh, nullptr, rows, hs, cols);    // queries @ keys^T
        for (int64_t i = 0; i < rows; ++i) {
          float* w = Wb + i * cols;
          const int64_t visible = causal ? std::min(S, offset + r0 + i + 1) : S;
          // Scale after masking, like the book: softmax(masked_scores / sqrt(hs)).
          for (int64_t s = 0; s < visible; ++s) w[s] *= scale;
          softmax_rows(w, 1, visible);
          std::fill(w + visible, w + cols, 0.0f);  // exp(-inf) = 0 for masked keys
          float* a = A + (r0 + i) * S;
          std::copy(w, w + cols, a);
          std::fill(a + cols, a + S, 0.0f);
        }
        const float* weights = Wb;
        if (M) {  // attn_weights = self.dropout(attn_weights)
          for (int64_t i = 0; i < rows; ++i)
            for (int64_t s = 0; s < cols; ++s) Db[i * cols + s] = Wb[i * cols + s] * M[(r0 + i) * S + s];
          weights = Db;
        }
        linear_backward(Oh + r0 * hs, nullptr, nullptr, weights, nullptr, Vh, rows, hs, cols);  // weights @ values
      }
      float* o = out + b * T * C + h * hs;
      for (int64_t t = 0; t < T; ++t) std::copy(Oh + t * hs, Oh + (t + 1) * hs, o + t * C);
    }
  }
}

double sum_squares(const float* x, int64_t n, double sum) {
  for (int64_t i = 0; i < n; ++i) sum += static_cast<double>(x[i]) * x[i];
  return sum;
}

void adamw_update(float* p, const float* g, float* m, float* v, int64_t n, const AdamWCoefficients& c) {
  for (int64_t j = 0; j < n; ++j) {
    p[j] *= c.keep;                                     // param.mul_(1 - lr * weight_decay)
    m[j] = m[j] * c.b1 + g[j] * c.one_minus_b1;         // exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
    v[j] = v[j] * c.b2 + c.one_minus_b2 * g[j] * g[j];  // exp_avg_sq.mul_(beta2).addcmul_(grad, grad, 1 - beta2)
    const float denom = std::sqrt(v[j]) / c.bc2_sqrt + c.eps;
    p[j] += c.neg_step_size * m[j] / denom;             // param.addcdiv_(exp_avg, denom, value=-step_size)
  }
}

}  // namespace blockscope
