// MultiHeadAttention: Q, K, V projections, per-head scaled dot-product attention, out_proj.
#include "blockscope/multi_head_attention.hpp"

#include <algorithm>

#include "blockscope/checked.hpp"
#include "blockscope/error.hpp"
#include "blockscope/memory_budget.hpp"
#include "blockscope/ops.hpp"
#include "grow_only.hpp"

namespace blockscope {

void AttentionConfig::validate() const {
  using L = SizeLimits;
  require(d_in > 0, "attention d_in must be positive, got ", d_in);
  require(d_in <= L::kMaxEmbDim, "attention d_in ", d_in, " exceeds the limit of ", L::kMaxEmbDim);
  require(d_out > 0, "attention d_out must be positive, got ", d_out);
  require(d_out <= L::kMaxEmbDim, "attention d_out ", d_out, " exceeds the limit of ", L::kMaxEmbDim);
  require(context_length > 0, "attention context_length must be positive, got ", context_length);
  require(context_length <= L::kMaxContext, "attention context_length ", context_length, " exceeds the limit of ",
          L::kMaxContext);
  require(num_heads > 0, "attention num_heads must be positive, got ", num_heads);
  require(d_out % num_heads == 0, "d_out (", d_out, ") must be divisible by num_heads (", num_heads, ")");
  require(drop_rate >= 0.0 && drop_rate < 1.0, "drop_rate must be in [0, 1), got ", drop_rate);
}

int64_t MultiHeadAttention::projection_flops_per_token(const AttentionConfig& cfg) {
  const char* what = "attention's projection flops";
  return checked_mul(2, checked_add(checked_product(what, {3, cfg.d_in, cfg.d_out}), checked_mul(cfg.d_out, cfg.d_out, what), what), what);
}

int64_t MultiHeadAttention::score_flops_per_token(const AttentionConfig& cfg, int64_t n) {
  require(n > 0, "sequence length must be positive, got ", n);
  return checked_product("attention's score flops", {4, n, cfg.d_out});
}

int64_t MultiHeadAttention::num_params(const AttentionConfig& cfg) {
  cfg.validate();
  const char* what = "the attention's parameter count";
  return checked_add(checked_mul(3, Linear::num_params(cfg.d_in, cfg.d_out, cfg.qkv_bias), what),
                     Linear::num_params(cfg.d_out, cfg.d_out, cfg.out_bias), what);
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
  // Sized and checked before anything is allocated: (B, NH, T, T) weights grow with T^2.
  const char* what = "the attention's buffers";
  const int64_t att = checked_product(what, {B, cfg_.num_heads, T, T});
  const int64_t act = checked_product(what, {5, B, T, cfg_.d_out});  // out, q, k, v, ctx
  MemoryBudget{}.require_fits({{detail::concat("attention over ", B, " x ", T, " tokens with ", cfg_.num_heads,
                                               " heads (weights ", B, " x ", cfg_.num_heads, " x ", T, " x ", T, ")"),
                                float_bytes(checked_add(att, act, what), what)}});
  Tensor y({B, T, cfg_.d_out});
  last_att_ = Tensor({B, cfg_.num_heads, T, T});
  forward(y.ptr(), last_att_.ptr(), x.ptr(), B, T);
  return y;
}

void MultiHeadAttention::forward(float* out, float* att, const float* inp, int64_t B, int64_t T) {
  const size_t n = to_size(checked_product("the attention's q/k/v buffers", {B, T, cfg_.d_out}),
                           "the attention's q/k/v buffers");
  for (auto* buf : {&q_, &k_, &v_, &ctx_}) detail::grow_to(*buf, n);
  forward(out, AttentionActs{q_.data(), k_.data(), v_.data(), att, nullptr, ctx_.data()}, inp, B, T);
}

void MultiHeadAttention::forward(float* out, const AttentionActs& a, const float* inp, int64_t B, int64_t T) {
  const int64_t N = B * T, D = cfg_.d_out;
  wq_.forward(a.q, inp, N);  // queries = self.W_query(x)
  wk_.forward(a.k, inp, N);  // keys = self.W_key(x)
  wv_.forward(a.v, inp, N);  // values = self.W_value(x)
  // self.dropout(softmax(mask(q k^T) / sqrt(head_dim))) @ v, heads concatenated back to (B, T, d_out).
  attention_forward(a.ctx, a.att, a.q, a.k, a.v, B, T, T, T, D, cfg_.num_heads, cfg_.causal, a.att_mask);
  ablate(a.ctx, B, T, false);
  wo_.forward(out, a.ctx, N);  // self.out_proj(context_vec)
}

void MultiHeadAttention::backward(float* dinp, const float* dout, const float* inp, const AttentionActs& a,
                                  int64_t B, int64_t T, const GradMap& grads) {
  const int64_t N = B * T, D = cfg_.d_out;
  const size_t n = to_size(checked_mul(N, D, "the attention's gradient buffers"), "the attention's gradient buffers");
  for (auto* buf : {&dq_, &dk_, &dv_, &dctx_}) buf->assign(n, 0.0f);
  datt_.resize(to_size(checked_product("the attention's (T, T) scratch", {2, T, T}), "the attention's (T, T) scratch"));
  wo_.backward(dctx_.data(), dout, a.ctx, N, grads);
  ablate(dctx_.data(), B, T, /*transpose=*/true);
  attention_backward(dq_.data(), dk_.data(), dv_.data(), datt_.data(), dctx_.data(), a.q, a.k, a.v, a.att,
                     a.att_mask, B, T, D, cfg_.num_heads, cfg_.causal);
  wq_.backward(dinp, dq_.data(), inp, N, grads);
  wk_.backward(dinp, dk_.data(), inp, N, grads);
  wv_.backward(dinp, dv_.data(), inp, N, grads);
}

void MultiHeadAttention::forward_cached(float* out, float* att, const float* inp, int64_t T, const KVSlot& kv,
                                        int64_t rows) {
  const int64_t D = cfg_.d_out, S = kv.pos + T;
  if (rows <= 0) rows = T;
  require(rows <= T, "cannot compute ", rows, " output rows of ", T, " new tokens");
  require(std::find(ablation_.begin(), ablation_.end(), HeadAblation::Mean) == ablation_.end(),
          "a head replaced by its mean over the sequence needs the whole sequence: use a full forward pass, not "
          "the KV cache (generation)");
  require(S <= kv.rows, "KV cache holds ", kv.rows, " positions; cannot append ", T, " tokens at position ", kv.pos);
  const size_t n = to_size(checked_mul(rows, D, "the cached attention's queries"), "the cached attention's queries");
  detail::grow_to(q_, n);
  detail::grow_to(ctx_, n);
  const float* last = inp + (T - rows) * cfg_.d_in;
  wq_.forward(q_.data(), last, rows);            // queries of the rows wanted (causal: they see every key)
  wk_.forward(kv.k + kv.pos * D, inp, T);        // every new token's key and value goes straight into the cache
  wv_.forward(kv.v + kv.pos * D, inp, T);
  attention_forward(ctx_.data(), att, q_.data(), kv.k, kv.v, 1, rows, S, kv.rows, D, cfg_.num_heads, cfg_.causal);
  ablate(ctx_.data(), 1, rows, false);  // Zero only (set_head_ablation's rule; Mean is refused above)
  wo_.forward(out, ctx_.data(), rows);
}

void MultiHeadAttention::set_head_ablation(std::vector<HeadAblation> heads) {
  require(heads.empty() || static_cast<int64_t>(heads.size()) == cfg_.num_heads, "head ablation needs one entry per head (",
          cfg_.num_heads, "), got ", heads.size());
  if (std::all_of(heads.begin(), heads.end(), [](HeadAblation h) { return h == HeadAblation::Keep; })) heads.clear();
  ablation_ = std::move(heads);
}

// ctx (B, T, d_out): head h owns columns [h * hd, (h + 1) * hd). Mean replaces a head's output at position t by
// its mean over the positions the token may see: 0..t in a causal model (no position learns about later tokens
// through the ablation), the whole sequence otherwise. With `transpose`, the backward of that map on gradients:
// Zero passes none; the whole-sequence mean is its own transpose; the causal mean gives position t the sum over
// t' >= t of position t''s gradient divided by t' + 1.
void MultiHeadAttention::ablate(float* ctx, int64_t B, int64_t T, bool transpose) const {
  const int64_t D = cfg_.d_out, hd = head_dim();
  std::vector<double> sum(static_cast<size_t>(hd));
  for (size_t h = 0; h < ablation_.size(); ++h) {
    if (ablation_[h] == HeadAblation::Keep) continue;
    const int64_t c0 = static_cast<int64_t>(h) * hd;
    for (int64_t b = 0; b < B; ++b) {
      float* rows = ctx + b * T * D + c0;
      const auto at = [&](int64_t t, int64_t c) -> float& { return rows[t * D + c]; };
      std::fill(sum.begin(), sum.end(), 0.0);
      if (ablation_[h] == HeadAblation::Zero) {
        for (int64_t t = 0; t < T; ++t) std::fill(rows + t * D, rows + t * D + hd, 0.0f);
      } else if (!cfg_.causal) {
        for (int64_t t = 0; t < T; ++t)
          for (int64_t c = 0; c < hd; ++c) sum[static_cast<size_t>(c)] += at(t, c);
        for (int64_t t = 0; t < T; ++t)
          for (int64_t c = 0; c < hd; ++c) at(t, c) = static_cast<float>(sum[static_cast<size_t>(c)] / T);
      } else if (!transpose) {
        for (int64_t t = 0; t < T; ++t)
          for (int64_t c = 0; c < hd; ++c) {
            sum[static_cast<size_t>(c)] += at(t, c);
            at(t, c) = static_cast<float>(sum[static_cast<size_t>(c)] / static_cast<double>(t + 1));
          }
      } else {
        for (int64_t t = T; t-- > 0;)
          for (int64_t c = 0; c < hd; ++c) {
            sum[static_cast<size_t>(c)] += at(t, c) / static_cast<double>(t + 1);
            at(t, c) = static_cast<float>(sum[static_cast<size_t>(c)]);
          }
      }
    }
  }
}

}  // namespace blockscope
