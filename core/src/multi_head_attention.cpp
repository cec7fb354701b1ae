// MultiHeadAttention: Q, K, V projections, per-head scaled dot-product attention, out_proj.
#include "blockscope/multi_head_attention.hpp"

#include "blockscope/error.hpp"
#include "blockscope/ops.hpp"

namespace blockscope {

void AttentionConfig::validate() const {
  require(d_in > 0, "attention d_in must be positive, got ", d_in);
  require(d_out > 0, "attention d_out must be positive, got ", d_out);
  require(context_length > 0, "attention context_length must be positive, got ", context_length);
  require(num_heads > 0, "attention num_heads must be positive, got ", num_heads);
  require(d_out % num_heads == 0, "d_out (", d_out, ") must be divisible by num_heads (", num_heads, ")");
  require(drop_rate >= 0.0 && drop_rate < 1.0, "drop_rate must be in [0, 1), got ", drop_rate);
}

int64_t MultiHeadAttention::num_params(const AttentionConfig& cfg) {
  cfg.validate();
  return 3 * Linear::num_params(cfg.d_in, cfg.d_out, cfg.qkv_bias) +
         Linear::num_params(cfg.d_out, cfg.d_out, cfg.out_bias);
}

MultiHeadAttention::MultiHeadAttention(const AttentionConfig& cfg, uint64_t seed)
    : cfg_(cfg), own_(std::make_unique<ParamArena>(num_params(cfg))) {
  wq_ = Linear(*own_, "W_query.", cfg.d_in, cfg.d_out, cfg.qkv_bias);
  wk_ = Linear(*own_, "W_key.", cfg.d_in, cfg.d_out, cfg.qkv_bias);
  wv_ = Linear(*own_, "W_value.", cfg.d_in, cfg.d_out, cfg.qkv_bias);
  wo_ = Linear(*own_, "out_proj.", cfg.d_out, cfg.d_out, cfg.out_bias);
  Rng rng(seed);
  init(rng);
}

MultiHeadAttention::MultiHeadAttention(ParamArena& arena, const std::string& prefix, const AttentionConfig& cfg)
    : cfg_(cfg) {
  cfg.validate();
  wq_ = Linear(arena, prefix + "W_query.", cfg.d_in, cfg.d_out, cfg.qkv_bias);
  wk_ = Linear(arena, prefix + "W_key.", cfg.d_in, cfg.d_out, cfg.qkv_bias);
  wv_ = Linear(arena, prefix + "W_value.", cfg.d_in, cfg.d_out, cfg.qkv_bias);
  wo_ = Linear(arena, prefix + "out_proj.", cfg.d_out, cfg.d_out, cfg.out_bias);
}

void MultiHeadAttention::init(Rng& rng) {
  wq_.init(rng);
  wk_.init(rng);
  wv_.init(rng);
  wo_.init(rng);
}

Tensor MultiHeadAttention::forward(const Tensor& x) {
  require(x.ndim() == 3, "MultiHeadAttention expects input (B, T, d_in), got shape ", shape_str(x.shape));
  require(x.dim(2) == cfg_.d_in, "MultiHeadAttention expects d_in = ", cfg_.d_in, ", got input of shape ",
          shape_str(x.shape));
  const int64_t B = x.dim(0), T = x.dim(1);
  require(T <= cfg_.context_length, "sequence length ", T, " exceeds context_length ", cfg_.context_length);
  require_finite(x.ptr(), x.numel(), "MultiHeadAttention input");
  Tensor y({B, T, cfg_.d_out});
  last_att_ = Tensor({B, cfg_.num_heads, T, T});
  forward(y.ptr(), last_att_.ptr(), x.ptr(), B, T);
  return y;
}

void MultiHeadAttention::forward(float* out, float* att, const float* inp, int64_t B, int64_t T) {
  const int64_t N = B * T, D = cfg_.d_out;
  q_.resize(static_cast<size_t>(N * D));
  k_.resize(q_.size());
  v_.resize(q_.size());
  ctx_.resize(q_.size());
  wq_.forward(q_.data(), inp, N);  // queries = W_query(x)
  wk_.forward(k_.data(), inp, N);  // keys = W_key(x)
  wv_.forward(v_.data(), inp, N);  // values = W_value(x)
  // softmax(mask(q k^T) / sqrt(head_dim)) @ v, heads concatenated back to (B, T, d_out); dropout = identity.
  attention_forward(ctx_.data(), att, q_.data(), k_.data(), v_.data(), B, T, T, T, D, cfg_.num_heads, cfg_.causal);
  wo_.forward(out, ctx_.data(), N);  // out_proj
}

void MultiHeadAttention::forward_cached(float* out, float* att, const float* inp, int64_t T, const KVSlot& kv) {
  const int64_t D = cfg_.d_out, S = kv.pos + T;
  require(S <= kv.rows, "KV cache holds ", kv.rows, " positions; cannot append ", T, " tokens at position ", kv.pos);
  q_.resize(static_cast<size_t>(T * D));
  ctx_.resize(q_.size());
  wq_.forward(q_.data(), inp, T);                // queries of the new tokens
  wk_.forward(kv.k + kv.pos * D, inp, T);        // their keys and values go straight into the cache
  wv_.forward(kv.v + kv.pos * D, inp, T);
  attention_forward(ctx_.data(), att, q_.data(), kv.k, kv.v, 1, T, S, kv.rows, D, cfg_.num_heads, cfg_.causal);
  wo_.forward(out, ctx_.data(), T);
}

}  // namespace blockscope
