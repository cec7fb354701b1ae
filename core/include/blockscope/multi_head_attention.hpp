// MultiHeadAttention (book ch. 3.6): separate W_query / W_key / W_value projections (bias = qkv_bias),
// NH heads of size d_out / NH, scaled dot product, causal mask, dropout on the attention weights (when
// training with a mask) and an out_proj. Matches the book's MultiHeadAttention module and parameter names.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <memory>
#include <string>
#include <vector>

#include "blockscope/linear.hpp"
#include "blockscope/param_arena.hpp"
#include "blockscope/tensor.hpp"

namespace blockscope {

struct AttentionConfig {
  int64_t d_in = 0;
  int64_t d_out = 0;
  int64_t context_length = 0;
  int64_t num_heads = 1;
  bool qkv_bias = false;
  bool out_bias = true;  // the book's out_proj has a bias; the lesson's encoder block has none
  bool causal = true;
  double drop_rate = 0.0;  // dropout of the attention weights while training; the identity at inference
  void validate() const;   // throws Error: sizes > 0, d_out divisible by num_heads, 0 <= drop_rate < 1
  // Keys "d_in", "d_out", "context_length", "num_heads", optional "qkv_bias", "out_bias", "causal",
  // "drop_rate"; strict, validated (config_json.cpp).
  static AttentionConfig from_json(const nlohmann::json& j);
};

// One layer's slice of a KV cache for incremental decoding (batch 1): keys and values of positions
// 0 .. pos-1 are already stored; a cached forward writes the new tokens' rows at pos .. pos+T-1.
struct KVSlot {
  float* k = nullptr;  // (rows, d_out)
  float* v = nullptr;  // (rows, d_out)
  int64_t rows = 0;    // capacity: the context length
  int64_t pos = 0;     // tokens already cached
};

// What one attention forward keeps for its backward (pointers into the caller's activation memory).
// q, k, v, ctx (B, T, d_out); att (B, NH, T, T) softmax weights before dropout; att_mask (B, NH, T, T): the
// dropout scale (0 or 1/(1-p)) of every weight, or null without dropout.
struct AttentionActs {
  float* q = nullptr;
  float* k = nullptr;
  float* v = nullptr;
  float* att = nullptr;
  float* att_mask = nullptr;
  float* ctx = nullptr;  // heads concatenated, the out_proj input
};

// What head ablation does to one head's output (MultiHeadAttention::set_head_ablation).
enum class HeadAblation : uint8_t { Keep, Zero, Mean };

class MultiHeadAttention {
 public:
  explicit MultiHeadAttention(const AttentionConfig& cfg, uint64_t seed = 123);
  MultiHeadAttention(ParamArena& arena, const std::string& prefix, const AttentionConfig& cfg);
  static int64_t num_params(const AttentionConfig& cfg);
  // Multiply-add FLOPs per token (2 per multiply-add): the four projections, 2 (3 d_in d_out + d_out^2) = 8d^2 at
  // d_in = d_out = d; and the attention matrix products for a sequence of n tokens, QK^T and the weighted sum of V,
  // 2 n d_out each = 4 n d (every key counted, as the lessons count it; a causal mask halves it on average).
  static int64_t projection_flops_per_token(const AttentionConfig& cfg);
  static int64_t score_flops_per_token(const AttentionConfig& cfg, int64_t n);

  void init(Rng& rng);
  // x (B, T, d_in) -> (B, T, d_out). Throws Error if T > context_length or d_in mismatches.
  // Keeps the attention weights (B, NH, T, T) in last_attn_weights().
  Tensor forward(const Tensor& x);
  // Raw form: out (B, T, d_out); att (B, NH, T, T); inp (B, T, d_in).
  void forward(float* out, float* att, const float* inp, int64_t B, int64_t T);
  // Training form: every intermediate goes to `a` (and the attention weights are dropped out with
  // a.att_mask if set).
  void forward(float* out, const AttentionActs& a, const float* inp, int64_t B, int64_t T);
  // Backward of the training form: dinp (B, T, d_in) accumulates (null: skipped); weight gradients through
  // `grads`. Scratch (dq, dk, dv, dctx and two (T, T) head buffers) is kept by the object.
  void backward(float* dinp, const float* dout, const float* inp, const AttentionActs& a, int64_t B, int64_t T,
                const GradMap& grads);
  // Incremental form (B = 1): T new tokens at positions kv.pos .. kv.pos+T-1 attend to the cached keys and
  // values plus their own; their keys/values are appended to `kv`. att (NH, T, kv.pos + T).
  // With `rows` < T only the last `rows` tokens' outputs are computed (out (rows, d_out), att (NH, rows,
  // kv.pos + T)), every token's key and value still cached: a pass that only needs the last position's logits.
  void forward_cached(float* out, float* att, const float* inp, int64_t T, const KVSlot& kv, int64_t rows = 0);

  // Head ablation (interpretability): each head's output, before out_proj, kept, zeroed, or replaced by its mean
  // over the sequence's positions (per batch row). forward and backward honour it (the backward of a replaced
  // output spreads its gradient over the positions); forward_cached refuses Mean, which needs the whole sequence.
  // `heads` is empty (no ablation) or one entry per head.
  void set_head_ablation(std::vector<HeadAblation> heads);
  const std::vector<HeadAblation>& head_ablation() const { return ablation_; }

  const AttentionConfig& config() const { return cfg_; }
  int64_t head_dim() const { return cfg_.d_out / cfg_.num_heads; }
  const Linear& W_query() const { return wq_; }
  const Linear& W_key() const { return wk_; }
  const Linear& W_value() const { return wv_; }
  const Linear& out_proj() const { return wo_; }
  ParamArena* own_params() { return own_.get(); }
  const Tensor& last_attn_weights() const { return last_att_; }

 private:
  AttentionConfig cfg_;
  std::unique_ptr<ParamArena> own_;
  Linear wq_, wk_, wv_, wo_;
  std::vector<HeadAblation> ablation_;  // empty: none
  void ablate(float* ctx, int64_t B, int64_t T, bool transpose) const;
  FloatBuffer q_, k_, v_, ctx_;  // workspace (B, T, d_out) each
  FloatBuffer dq_, dk_, dv_, dctx_, datt_;  // backward scratch
  Tensor last_att_;
};

}  // namespace blockscope
