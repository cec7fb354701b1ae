// The numeric kernels of Blockscope, written llm.c-style: free functions over raw float32 row-major
// buffers with the argument order (outputs, caches, inputs, weights, dims). No allocation, no checks:
// the component classes validate shapes before calling these.
//
// Dimension letters: B batch, T tokens (queries), S keys, C channels (emb_dim), OC output channels,
// NH heads, hs head size (C / NH), H hidden FFN width, V vocabulary, L layers, N rows (B*T).
#pragma once

#include <cstdint>

namespace blockscope {

enum class Activation { GeluTanh, GeluErf, Relu, Tanh };

// "gelu_tanh" / "gelu_erf" / "relu" / "tanh"; parse throws Error naming the bad string.
const char* activation_name(Activation a);
Activation parse_activation(const char* name);

// The instruction set this build's kernels target: "simd128" (wasm with -msimd128), "relaxed-simd" (the simd-relaxed
// wasm flavour: SIMD128 with relaxed-SIMD multiply-add kernels) or "generic".
const char* kernel_isa();

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
// 0.5 x (1 + erf(x / sqrt(2))), F.gelu's default; ReLU is max(x, 0); tanh is torch.tanh (the lesson's
// residual-gradient network).
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
// With `att_mask` (B, NH, T, S), attention dropout: out = (att * att_mask) @ v while att keeps the weights
// before dropout (the backward needs them).
void attention_forward(float* out, float* att, const float* q, const float* k, const float* v, int64_t B,
                       int64_t T, int64_t S, int64_t kv_rows, int64_t C, int64_t NH, bool causal,
                       const float* att_mask = nullptr);

// Numerically stable softmax of every row in place: x (N, n).
void softmax_rows(float* x, int64_t N, int64_t n);

// ---------------------------------------------------------------------------------------------------------
// Backward passes (core/src/ops_backward.cpp), llm.c-style: (input gradients, weight gradients, upstream
// gradient, forward caches and inputs, weights, dims). Every gradient is ACCUMULATED (+=), as PyTorch's
// autograd accumulates into .grad: callers zero them once per step, and a tied weight used twice (GPT-2's
// embedding and LM head) gets both contributions. A null gradient pointer means "not needed".
// ---------------------------------------------------------------------------------------------------------

// Backward of layernorm_forward (mean, rstd are its per-row caches).
// dinp (N, C); dweight, dbias (C); dout, inp (N, C); weight (C); mean, rstd (N).
void layernorm_backward(float* dinp, float* dweight, float* dbias, const float* dout, const float* inp,
                        const float* weight, const float* mean, const float* rstd, int64_t N, int64_t C);

// Backward of linear_forward: dinp (N, C) += dout @ weight; dweight (OC, C) += dout^T @ inp;
// dbias (OC) += column sums of dout. dout (N, OC); inp (N, C); weight (OC, C).
void linear_backward(float* dinp, float* dweight, float* dbias, const float* dout, const float* inp,
                     const float* weight, int64_t N, int64_t C, int64_t OC);

// dinp (n) += activation'(inp) * dout, with PyTorch's derivative formulas (ReLU's is 0 at exactly 0).
void activation_backward(Activation kind, float* dinp, const float* inp, const float* dout, int64_t n);

// Backward of attention_forward for a full pass (T == S, kv_rows == T). att (B, NH, T, T) holds the softmax
// weights before dropout, att_mask (same shape, or null) the dropout scale that multiplied them (0 or
// 1/(1-p)). dq, dk, dv (B, T, C) are accumulated; datt (2, T, T) is scratch for one (batch, head) at a time,
// so nothing larger than the forward's att is materialised.
void attention_backward(float* dq, float* dk, float* dv, float* datt, const float* dout, const float* q,
                        const float* k, const float* v, const float* att, const float* att_mask, int64_t B,
                        int64_t T, int64_t C, int64_t NH, bool causal);

// Mean cross-entropy of softmax(logits) against targets, fused and numerically stable (log-sum-exp with the
// row maximum subtracted), as F.cross_entropy. losses (N) gets each row's -log p(target); returns the mean.
// logits (N, V); targets (N), each in [0, V) (checked by the caller).
double cross_entropy_forward(float* losses, const float* logits, const int32_t* targets, int64_t N, int64_t V);
// Overwrites logits with d(scale * mean loss)/d logits = scale * (softmax(logits) - onehot(target)) / N.
void cross_entropy_backward(float* logits, const int32_t* targets, int64_t N, int64_t V, float scale);

// Backward of the GPT embedding x = tok_emb[ids] + pos_emb[t]: dtok (V, C) and dpos (context, C) accumulate
// rows of dout (B, T, C); ids (B, T).
void embedding_backward(float* dtok, float* dpos, const float* dout, const int32_t* ids, int64_t B, int64_t T,
                        int64_t C);

// Dropout with an explicit mask: out = inp * mask, where mask holds 0 (dropped) or 1/(1-p) (kept). out may
// alias inp. The backward is the same product: dinp += dout * mask.
void dropout_apply(float* out, const float* inp, const float* mask, int64_t n);
void dropout_backward(float* dinp, const float* dout, const float* mask, int64_t n);

// sum + x[0]^2 + x[1]^2 + ... in double, in index order (the same bits on every platform): gradient norms, clipping.
double sum_squares(const float* x, int64_t n, double sum = 0.0);

// One AdamW update of n parameters in place, torch.optim.AdamW's single-tensor path op by op in float32 (the
// coefficients for this step are AdamW::step's): p *= keep; m = m b1 + g (1 - b1); v = v b2 + (1 - b2) g g;
// p += neg_step_size * m / (sqrt(v) / bc2_sqrt + eps).
struct AdamWCoefficients {
  float keep, b1, one_minus_b1, b2, one_minus_b2, bc2_sqrt, eps, neg_step_size;
};
void adamw_update(float* p, const float* g, float* m, float* v, int64_t n, const AdamWCoefficients& c);

}  // namespace blockscope
