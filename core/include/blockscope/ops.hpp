// The numeric kernels of Blockscope, written llm.c-style: free functions over raw float32 row-major
// buffers with the argument order (outputs, caches, inputs, weights, dims). No allocation, no checks:
// the component classes validate shapes before calling these.
//
// Dimension letters: B batch, T tokens (queries), S keys, C channels (emb_dim), OC output channels,
// NH heads, hs head size (C / NH), H hidden FFN width, V vocabulary, L layers, N rows (B*T).
#pragma once

#include <cstdint>

namespace blockscope {

enum class Activation { GeluTanh, GeluErf, Relu };

// "gelu_tanh" / "gelu_erf" / "relu"; parse throws Error naming the bad string.
const char* activation_name(Activation a);
Activation parse_activation(const char* name);

// out = LayerNorm(inp) over the last axis: (x - mean) / sqrt(var + eps) * weight + bias, biased variance,
// as torch.nn.LayerNorm. mean and rstd (1/sqrt(var+eps)) are written per row when non-null.
// out (N, C); mean, rstd (N); inp (N, C); weight, bias (C).
void layernorm_forward(float* out, float* mean, float* rstd, const float* inp, const float* weight,
                       const float* bias, int64_t N, int64_t C, float eps);

// Mean and biased variance of every row: mean, var (N); inp (N, C). Two-pass for accuracy.
void row_mean_var(float* mean, float* var, const float* inp, int64_t N, int64_t C);
// Euclidean norm of every row: norm (N); inp (N, C).
void row_l2_norm(float* norm, const float* inp, int64_t N, int64_t C);

// Elementwise activation, out may alias inp. GELU-tanh is GPT-2's approximation
// 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), F.gelu(approximate='tanh'); GELU-erf is the exact
// 0.5 x (1 + erf(x / sqrt(2))), F.gelu's default; ReLU is max(x, 0).
void activation_forward(Activation kind, float* out, const float* inp, int64_t n);
// d activation / dx evaluated at inp (the derivative curve the GELU widget plots).
void activation_derivative(Activation kind, float* out, const float* inp, int64_t n);

// out = inp @ weight^T + bias, as torch.nn.Linear. bias may be null.
// out (N, OC); inp (N, C); weight (OC, C); bias (OC).
void linear_forward(float* out, const float* inp, const float* weight, const float* bias, int64_t N,
                    int64_t C, int64_t OC);

// Scaled dot-product attention for all heads, as torch.softmax(q @ k^T / sqrt(hs)) @ v.
// Queries are the last T of S positions (T == S for a full pass, T < S when decoding with a KV cache);
// with `causal`, query t attends only to keys 0 .. (S - T + t). Masked weights are exactly 0.
// out (B, T, C); att (B, NH, T, S) softmax weights; q (B, T, C); k, v (B, kv_rows, C) of which the first
// S rows of each batch entry are used; C = NH * hs.
void attention_forward(float* out, float* att, const float* q, const float* k, const float* v, int64_t B,
                       int64_t T, int64_t S, int64_t kv_rows, int64_t C, int64_t NH, bool causal);

// Numerically stable softmax of every row in place: x (N, n).
void softmax_rows(float* x, int64_t N, int64_t n);

}  // namespace blockscope
