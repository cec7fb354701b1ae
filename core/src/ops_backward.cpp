// The backward kernels of ops.hpp: LayerNorm, Linear, activations, attention, fused softmax cross-entropy,
// embeddings and dropout. Every gradient accumulates (+=), as autograd's .grad does. Formulas follow
// PyTorch's own derivative code (tools/autograd/derivatives.yaml, aten/src/ATen/native/*) and llm.c.
#include <algorithm>
#include <cmath>

#include "blockscope/ops.hpp"
#include "ops_internal.hpp"
#include "fast_math.hpp"
#include "kernels/dispatch.hpp"

namespace blockscope {

using namespace detail;  // GELU constants, head scratch (ops_internal.hpp)

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
  // The build's kernels (SIMD128: the forward's GEMM transposed; natively Eigen's products).
  kernels::active().linear_backward(dinp, dweight, dbias, dout, inp, weight, N, C, OC);
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
  const int64_t hs = C / NH, n = T * hs;
  const float scale = 1.0f / std::sqrt(static_cast<float>(hs));
  // One head at a time on contiguous (T, hs) copies, so the four products run on the linear kernels; causal
  // attention by blocks of query rows against the keys they see, as in the forward pass.
  const int64_t R = causal ? std::min<int64_t>(T, kAttentionRowBlock) : T;
  float* Qh = head_scratch(static_cast<size_t>(7 * n));
  float* Kh = Qh + n;
  float* Vh = Kh + n;
  float* dOh = Vh + n;
  float* dQh = dOh + n;
  float* dKh = dQh + n;
  float* dVh = dKh + n;
  float* dW = datt;          // (R, cols): d loss / d softmax weights of a block, then d loss / d scores
  float* Wb = datt + T * T;  // (R, cols): the block's weights (after dropout, when there is dropout)
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t h = 0; h < NH; ++h) {
      const int64_t off = b * T * C + h * hs;
      gather_head(Qh, q + off, T, hs, C);
      gather_head(Kh, k + off, T, hs, C);
      gather_head(Vh, v + off, T, hs, C);
      gather_head(dOh, dout + off, T, hs, C);
      std::fill(dQh, dQh + 3 * n, 0.0f);  // dQh, dKh, dVh
      const float* A = att + (b * NH + h) * T * T;
      const float* M = att_mask ? att_mask + (b * NH + h) * T * T : nullptr;
      for (int64_t r0 = 0; r0 < T; r0 += R) {
        const int64_t rows = std::min(R, T - r0), cols = causal ? r0 + rows : T;
        // out = drop(A) @ V
        linear_forward(dW, dOh + r0 * hs, Vh, nullptr, rows, hs, cols);  // dW = dO @ V^T
        for (int64_t i = 0; i < rows; ++i)
          for (int64_t s = 0; s < cols; ++s) {
            const int64_t at = (r0 + i) * T + s;
            Wb[i * cols + s] = M ? A[at] * M[at] : A[at];
            if (M) dW[i * cols + s] *= M[at];
          }
        linear_backward(nullptr, dVh, nullptr, Wb, dOh + r0 * hs, nullptr, rows, hs, cols);  // dV += W^T @ dO
        // A = softmax(scale * masked scores): dscores = scale * A * (dA - rowsum(A * dA)). Masked (future)
        // keys have A = 0 and so get no gradient.
        for (int64_t i = 0; i < rows; ++i) {
          const float* a = A + (r0 + i) * T;
          float* g = dW + i * cols;
          const int64_t visible = causal ? r0 + i + 1 : T;
          double dot = 0.0;
          for (int64_t s = 0; s < visible; ++s) dot += static_cast<double>(a[s]) * g[s];
          const auto d = static_cast<float>(dot);
          for (int64_t s = 0; s < visible; ++s) g[s] = scale * a[s] * (g[s] - d);
          std::fill(g + visible, g + cols, 0.0f);
        }
        // scores = Q @ K^T
        linear_backward(dQh + r0 * hs, nullptr, nullptr, dW, nullptr, Kh, rows, hs, cols);  // dQ += dS @ K
        linear_backward(nullptr, dKh, nullptr, dW, Qh + r0 * hs, nullptr, rows, hs, cols);  // dK += dS^T @ Q
      }
      for (int64_t t = 0; t < T; ++t)
        for (int64_t j = 0; j < hs; ++j) {
          dq[off + t * C + j] += dQh[t * hs + j];
          dk[off + t * C + j] += dKh[t * hs + j];
          dv[off + t * C + j] += dVh[t * hs + j];
        }
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
