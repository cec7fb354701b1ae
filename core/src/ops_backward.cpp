// The backward kernels of ops.hpp: LayerNorm, Linear, activations, attention, fused softmax cross-entropy,
// embeddings and dropout. Every gradient accumulates (+=), as autograd's .grad does. Formulas follow
// PyTorch's own derivative code (tools/autograd/derivatives.yaml, aten/src/ATen/native/*) and llm.c.
#include <Eigen/Core>
#include <algorithm>
#include <cmath>

#include "blockscope/ops.hpp"
#include "eigen_maps.hpp"
#include "fast_math.hpp"
#include "kernels/kernels.hpp"

namespace blockscope {

using namespace detail;  // Eigen maps and GELU constants (eigen_maps.hpp)

void layernorm_backward(float* dinp, float* dweight, float* dbias, const float* dout, const float* inp,
                        const float* weight, const float* mean, const float* rstd, int64_t N, int64_t C) {
  for (int64_t i = 0; i < N; ++i) {
    const float* dy = dout + i * C;
    const float* x = inp + i * C;
    const float m = mean[i], s = rstd[i];
    // y = xhat * w + b with xhat = (x - mean) * rstd. The two row means of the textbook formula
    // dx = rstd * (g - mean(g) - xhat * mean(g * xhat)), g = dy * w, are accumulated in double.
    double g_mean = 0.0, gx_mean = 0.0;
    for (int64_t c = 0; c < C; ++c) {
      const float xhat = (x[c] - m) * s;
      const float g = dy[c] * weight[c];
      g_mean += g;
      gx_mean += static_cast<double>(g) * xhat;
      if (dbias) dbias[c] += dy[c];
      if (dweight) dweight[c] += dy[c] * xhat;
    }
    if (!dinp) continue;
    const auto gm = static_cast<float>(g_mean / static_cast<double>(C));
    const auto gxm = static_cast<float>(gx_mean / static_cast<double>(C));
    float* dx = dinp + i * C;
    for (int64_t c = 0; c < C; ++c) {
      const float xhat = (x[c] - m) * s;
      dx[c] += (dy[c] * weight[c] - gm - xhat * gxm) * s;
    }
  }
}

void linear_backward(float* dinp, float* dweight, float* dbias, const float* dout, const float* inp,
                     const float* weight, int64_t N, int64_t C, int64_t OC) {
#ifdef __wasm_simd128__
  // Eigen has no SIMD128 path; the hand-written kernels are the forward's GEMM transposed (kernels/).
  kernels::f32_linear_backward(kernels::kLinearBackwardSimd128, dinp, dweight, dbias, dout, inp, weight, N, C, OC);
#else
  const ConstMatMap dy(dout, N, OC);
  if (dinp) MatMap(dinp, N, C).noalias() += dy * ConstMatMap(weight, OC, C);
  if (dweight) MatMap(dweight, OC, C).noalias() += dy.transpose() * ConstMatMap(inp, N, C);
  if (dbias) Eigen::Map<Eigen::RowVectorXf>(dbias, OC) += dy.colwise().sum();
#endif
}

void activation_backward(Activation kind, float* dinp, const float* inp, const float* dout, int64_t n) {
  switch (kind) {
    case Activation::GeluTanh:  // PyTorch's GeluBackward with approximate='tanh'
      for (int64_t i = 0; i < n; ++i) {
        const float x = inp[i];
        const float t = tanh_f32(kSqrt2OverPi * (x + kGeluCoeff * x * x * x));
        const float left_derivative = 0.5f * (1.0f + t);
        const float right_derivative = 0.5f * x * (1.0f - t * t) * kSqrt2OverPi * (1.0f + 3.0f * kGeluCoeff * x * x);
        dinp[i] += dout[i] * (left_derivative + right_derivative);
      }
      break;
    case Activation::GeluErf:  // cdf(x) + x pdf(x)
      for (int64_t i = 0; i < n; ++i) {
        const float x = inp[i];
        const float cdf = 0.5f * (1.0f + std::erf(x * kInvSqrt2));
        dinp[i] += dout[i] * (cdf + x * kInvSqrt2Pi * std::exp(-0.5f * x * x));
      }
      break;
    case Activation::Relu:  // threshold_backward: the gradient at exactly 0 is 0
      for (int64_t i = 0; i < n; ++i) dinp[i] += inp[i] > 0.0f ? dout[i] : 0.0f;
      break;
    case Activation::Tanh:  // 1 - tanh(x)^2
      for (int64_t i = 0; i < n; ++i) {
        const float t = tanh_f32(inp[i]);
        dinp[i] += dout[i] * (1.0f - t * t);
      }
      break;
  }
}

void attention_backward(float* dq, float* dk, float* dv, float* datt, const float* dout, const float* q,
                        const float* k, const float* v, const float* att, const float* att_mask, int64_t B,
                        int64_t T, int64_t C, int64_t NH, bool causal) {
  const int64_t hs = C / NH;
  const float scale = 1.0f / std::sqrt(static_cast<float>(hs));
  MatMap dA(datt, T, T);                 // d loss / d (softmax weights), one (b, h) at a time
  MatMap Ad(datt + T * T, T, T);         // the weights after dropout, when there is dropout
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t h = 0; h < NH; ++h) {
      const int64_t off = b * T * C + h * hs;
      const ConstStridedMap Q(q + off, T, hs, Eigen::OuterStride<>(C));
      const ConstStridedMap K(k + off, T, hs, Eigen::OuterStride<>(C));
      const ConstStridedMap V(v + off, T, hs, Eigen::OuterStride<>(C));
      const ConstStridedMap dO(dout + off, T, hs, Eigen::OuterStride<>(C));
      StridedMap dQ(dq + off, T, hs, Eigen::OuterStride<>(C));
      StridedMap dK(dk + off, T, hs, Eigen::OuterStride<>(C));
      StridedMap dV(dv + off, T, hs, Eigen::OuterStride<>(C));
      const ConstMatMap A(att + (b * NH + h) * T * T, T, T);
      // out = drop(A) @ V
      dA.noalias() = dO * V.transpose();
      if (att_mask) {
        const ConstMatMap M(att_mask + (b * NH + h) * T * T, T, T);
        Ad = A.cwiseProduct(M);
        dV.noalias() += Ad.transpose() * dO;
        dA = dA.cwiseProduct(M);
      } else {
        dV.noalias() += A.transpose() * dO;
      }
      // A = softmax(scale * masked scores): dscores = scale * A * (dA - rowsum(A * dA)). Masked (future)
      // keys have A = 0 and so get no gradient; with `causal` their columns are skipped outright.
      for (int64_t t = 0; t < T; ++t) {
        const float* a = att + ((b * NH + h) * T + t) * T;
        float* g = datt + t * T;
        const int64_t visible = causal ? t + 1 : T;
        double dot = 0.0;
        for (int64_t s = 0; s < visible; ++s) dot += static_cast<double>(a[s]) * g[s];
        const auto d = static_cast<float>(dot);
        for (int64_t s = 0; s < visible; ++s) g[s] = scale * a[s] * (g[s] - d);
        std::fill(g + visible, g + T, 0.0f);
      }
      // scores = Q K^T
      dQ.noalias() += dA * K;
      dK.noalias() += dA.transpose() * Q;
    }
  }
}

double cross_entropy_forward(float* losses, const float* logits, const int32_t* targets, int64_t N, int64_t V) {
  double total = 0.0;
  for (int64_t i = 0; i < N; ++i) {
    const float* l = logits + i * V;
    const float mx = *std::max_element(l, l + V);
    double sum = 0.0;
    for (int64_t j = 0; j < V; ++j) sum += std::exp(static_cast<double>(l[j] - mx));
    const double loss = static_cast<double>(mx) + std::log(sum) - static_cast<double>(l[targets[i]]);
    losses[i] = static_cast<float>(loss);
    total += loss;
  }
  return total / static_cast<double>(N);
}

void cross_entropy_backward(float* logits, const int32_t* targets, int64_t N, int64_t V, float scale) {
  const float per_row = scale / static_cast<float>(N);
  for (int64_t i = 0; i < N; ++i) {
    float* l = logits + i * V;
    const float mx = *std::max_element(l, l + V);
    double sum = 0.0;
    for (int64_t j = 0; j < V; ++j) sum += std::exp(static_cast<double>(l[j] - mx));
    const auto inv = static_cast<float>(1.0 / sum);
    for (int64_t j = 0; j < V; ++j) l[j] = std::exp(l[j] - mx) * inv * per_row;
    l[targets[i]] -= per_row;
  }
}

void embedding_backward(float* dtok, float* dpos, const float* dout, const int32_t* ids, int64_t B, int64_t T,
                        int64_t C) {
  for (int64_t b = 0; b < B; ++b)
    for (int64_t t = 0; t < T; ++t) {
      const float* g = dout + (b * T + t) * C;
      if (dtok) {
        float* row = dtok + static_cast<int64_t>(ids[b * T + t]) * C;
        for (int64_t c = 0; c < C; ++c) row[c] += g[c];
      }
      if (dpos) {
        float* row = dpos + t * C;
        for (int64_t c = 0; c < C; ++c) row[c] += g[c];
      }
    }
}

void dropout_apply(float* out, const float* inp, const float* mask, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = inp[i] * mask[i];
}

void dropout_backward(float* dinp, const float* dout, const float* mask, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dinp[i] += dout[i] * mask[i];
}

}  // namespace blockscope
