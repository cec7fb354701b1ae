// TransformerBlock: the two residual sublayers in pre- or post-norm wiring, with optional inspection.
#include "blockscope/transformer_block.hpp"

#include "blockscope/error.hpp"
#include "blockscope/ops.hpp"

namespace blockscope {

const char* norm_placement_name(NormPlacement p) { return p == NormPlacement::Pre ? "pre" : "post"; }

NormPlacement parse_norm_placement(const std::string& name) {
  if (name == "pre") return NormPlacement::Pre;
  if (name == "post") return NormPlacement::Post;
  throw Error("unknown norm placement '" + name + "' (expected \"pre\" or \"post\")");
}

AttentionConfig BlockConfig::attention() const {
  return {emb_dim, emb_dim, context_length, n_heads, qkv_bias, attn_out_bias, causal, drop_rate};
}

FeedForwardConfig BlockConfig::feed_forward() const { return {emb_dim, hidden_dim(), activation, true}; }

void BlockConfig::validate() const {
  require(emb_dim > 0, "emb_dim must be positive, got ", emb_dim);
  require(n_heads > 0, "n_heads must be positive, got ", n_heads);
  require(emb_dim % n_heads == 0, "emb_dim (", emb_dim, ") must be divisible by n_heads (", n_heads, ")");
  require(context_length > 0, "context_length must be positive, got ", context_length);
  require(ffn_hidden >= 0, "ffn_hidden must be >= 0 (0 means 4 * emb_dim), got ", ffn_hidden);
  attention().validate();
  feed_forward().validate();
}

int64_t TransformerBlock::num_params(const BlockConfig& cfg) {
  cfg.validate();
  return MultiHeadAttention::num_params(cfg.attention()) + FeedForward::num_params(cfg.feed_forward()) +
         2 * LayerNorm::num_params(cfg.emb_dim);
}

namespace {
const BlockConfig& validated(const BlockConfig& cfg) {
  cfg.validate();
  return cfg;
}
}  // namespace

TransformerBlock::TransformerBlock(const BlockConfig& cfg, uint64_t seed)
    : cfg_(validated(cfg)),
      own_(std::make_unique<ParamArena>(num_params(cfg))),
      att_(*own_, "att.", cfg.attention()),
      ff_(*own_, "ff.", cfg.feed_forward()),
      norm1_(*own_, "norm1.", cfg.emb_dim, cfg.ln_eps),
      norm2_(*own_, "norm2.", cfg.emb_dim, cfg.ln_eps) {
  Rng rng(seed);
  init(rng);
}

TransformerBlock::TransformerBlock(ParamArena& arena, const std::string& prefix, const BlockConfig& cfg)
    : cfg_(validated(cfg)),
      att_(arena, prefix + "att.", cfg.attention()),
      ff_(arena, prefix + "ff.", cfg.feed_forward()),
      norm1_(arena, prefix + "norm1.", cfg.emb_dim, cfg.ln_eps),
      norm2_(arena, prefix + "norm2.", cfg.emb_dim, cfg.ln_eps) {}

void TransformerBlock::init(Rng& rng) {
  att_.init(rng);
  ff_.init(rng);
  norm1_.reset_parameters();
  norm2_.reset_parameters();
}

Tensor TransformerBlock::forward(const Tensor& x, BlockInspection* inspect) {
  require(x.ndim() == 3 && x.dim(2) == cfg_.emb_dim, "TransformerBlock expects input (B, T, ", cfg_.emb_dim,
          "), got shape ", shape_str(x.shape));
  require(x.dim(1) <= cfg_.context_length, "sequence length ", x.dim(1), " exceeds context_length ",
          cfg_.context_length);
  require_finite(x.ptr(), x.numel(), "TransformerBlock input");
  Tensor y(x.shape);
  forward(y.ptr(), x.ptr(), x.dim(0), x.dim(1), inspect);
  return y;
}

void TransformerBlock::ensure_workspace(int64_t B, int64_t T) {
  const auto n = static_cast<size_t>(B * T * cfg_.emb_dim);
  const auto nh = static_cast<size_t>(B * T * cfg_.hidden_dim());
  normed_.resize(n);
  sub_.resize(n);
  mid_.resize(n);
  hidden_pre_.resize(nh);
  hidden_post_.resize(nh);
  att_w_.resize(static_cast<size_t>(B * cfg_.n_heads * T * T));
}

namespace {
void record_stats(RowStats& s, const float* x, int64_t N, int64_t C) {
  s.mean.resize(static_cast<size_t>(N));
  s.var.resize(static_cast<size_t>(N));
  row_mean_var(s.mean.data(), s.var.data(), x, N, C);
}

void record_step(BlockInspection* inspect, const char* op, const float* x, int64_t N, int64_t C) {
  if (!inspect) return;
  StepStats& s = inspect->steps.emplace_back();
  s.op = op;
  s.mean.resize(static_cast<size_t>(N));
  s.var.resize(static_cast<size_t>(N));
  s.norm.resize(static_cast<size_t>(N));
  row_mean_var(s.mean.data(), s.var.data(), x, N, C);
  row_l2_norm(s.norm.data(), x, N, C);
}

void add(float* out, const float* a, const float* b, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = a[i] + b[i];
}
}  // namespace

void TransformerBlock::forward(float* out, const float* inp, int64_t B, int64_t T, BlockInspection* inspect) {
  ensure_workspace(B, T);
  if (inspect) inspect->steps.clear();
  record_step(inspect, "x (input)", inp, B * T, cfg_.emb_dim);
  attention_half(mid_.data(), inp, B, T, inspect);
  ffn_half(out, mid_.data(), B, T, inspect);
  if (inspect) {
    inspect->residual_norm.resize(static_cast<size_t>(B * T));
    row_l2_norm(inspect->residual_norm.data(), out, B * T, cfg_.emb_dim);
  }
}

void TransformerBlock::forward_cached(float* out, const float* inp, int64_t T, const KVSlot& kv) {
  ensure_workspace(1, T);
  att_w_.resize(static_cast<size_t>(cfg_.n_heads * T * (kv.pos + T)));
  attention_half(mid_.data(), inp, 1, T, nullptr, &kv);
  ffn_half(out, mid_.data(), 1, T, nullptr);
}

// att(x), over the KV cache when decoding incrementally.
void TransformerBlock::attend(float* out, float* att, const float* inp, int64_t B, int64_t T, const KVSlot* kv) {
  if (kv) att_.forward_cached(out, att, inp, T, *kv);
  else att_.forward(out, att, inp, B, T);
}

void TransformerBlock::attention_half(float* out, const float* inp, int64_t B, int64_t T, BlockInspection* inspect,
                                      const KVSlot* kv) {
  const int64_t N = B * T, C = cfg_.emb_dim;
  float* att_w = att_w_.data();
  if (inspect) {
    inspect->attn_weights.resize(att_w_.size());
    att_w = inspect->attn_weights.data();
  }
  if (cfg_.norm == NormPlacement::Pre) {
    norm1_.forward(normed_.data(), nullptr, nullptr, inp, N);  // x = norm1(x)
    attend(sub_.data(), att_w, normed_.data(), B, T, kv);     // x = att(x); drop_shortcut = identity
    add(out, inp, sub_.data(), N * C);                         // x = x + shortcut
    record_step(inspect, "norm1", normed_.data(), N, C);
    record_step(inspect, "att", sub_.data(), N, C);
    record_step(inspect, "drop_shortcut", sub_.data(), N, C);
    record_step(inspect, "x + shortcut", out, N, C);
    if (inspect) {
      record_stats(inspect->norm1.in, inp, N, C);
      record_stats(inspect->norm1.out, normed_.data(), N, C);
    }
  } else {
    attend(sub_.data(), att_w, inp, B, T, kv);                 // att(x)
    add(normed_.data(), inp, sub_.data(), N * C);              // x + drop(att(x))
    norm1_.forward(out, nullptr, nullptr, normed_.data(), N);  // norm1(...)
    record_step(inspect, "att", sub_.data(), N, C);
    record_step(inspect, "drop_shortcut", sub_.data(), N, C);
    record_step(inspect, "x + shortcut", normed_.data(), N, C);
    record_step(inspect, "norm1", out, N, C);
    if (inspect) {
      record_stats(inspect->norm1.in, normed_.data(), N, C);
      record_stats(inspect->norm1.out, out, N, C);
    }
  }
}

void TransformerBlock::ffn_half(float* out, const float* inp, int64_t B, int64_t T, BlockInspection* inspect) {
  const int64_t N = B * T, C = cfg_.emb_dim;
  float* pre = hidden_pre_.data();
  float* post = hidden_post_.data();
  if (inspect) {
    inspect->ffn_hidden_pre.resize(hidden_pre_.size());
    inspect->ffn_hidden_post.resize(hidden_post_.size());
    pre = inspect->ffn_hidden_pre.data();
    post = inspect->ffn_hidden_post.data();
  }
  if (cfg_.norm == NormPlacement::Pre) {
    norm2_.forward(normed_.data(), nullptr, nullptr, inp, N);  // x = norm2(x)
    ff_.forward(sub_.data(), pre, post, normed_.data(), N);    // x = ff(x); drop_shortcut = identity
    add(out, inp, sub_.data(), N * C);                         // x = x + shortcut
    record_step(inspect, "norm2", normed_.data(), N, C);
    record_step(inspect, "ff", sub_.data(), N, C);
    record_step(inspect, "drop_shortcut", sub_.data(), N, C);
    record_step(inspect, "x + shortcut", out, N, C);
    if (inspect) {
      record_stats(inspect->norm2.in, inp, N, C);
      record_stats(inspect->norm2.out, normed_.data(), N, C);
    }
  } else {
    ff_.forward(sub_.data(), pre, post, inp, N);               // ff(x)
    add(normed_.data(), inp, sub_.data(), N * C);              // x + drop(ff(x))
    norm2_.forward(out, nullptr, nullptr, normed_.data(), N);  // norm2(...)
    record_step(inspect, "ff", sub_.data(), N, C);
    record_step(inspect, "drop_shortcut", sub_.data(), N, C);
    record_step(inspect, "x + shortcut", normed_.data(), N, C);
    record_step(inspect, "norm2", out, N, C);
    if (inspect) {
      record_stats(inspect->norm2.in, normed_.data(), N, C);
      record_stats(inspect->norm2.out, out, N, C);
    }
  }
}

BlockConfig EncoderBlock::block_config(int64_t d, int64_t h, int64_t d_ff, int64_t context_length) {
  BlockConfig cfg;
  cfg.emb_dim = d;
  cfg.n_heads = h;
  cfg.context_length = context_length;
  cfg.ffn_hidden = d_ff;
  cfg.qkv_bias = false;
  cfg.attn_out_bias = false;               // the lesson's Wo has bias=False
  cfg.causal = false;                      // an encoder sees the whole sequence
  cfg.activation = Activation::GeluErf;    // nn.GELU() defaults to the exact erf form
  cfg.norm = NormPlacement::Pre;
  require(d_ff > 0, "EncoderBlock d_ff must be positive, got ", d_ff);
  return cfg;
}

int64_t EncoderBlock::num_params(int64_t d, int64_t h, int64_t d_ff) {
  return TransformerBlock::num_params(block_config(d, h, d_ff));
}

EncoderBlock::EncoderBlock(int64_t d, int64_t h, int64_t d_ff, uint64_t seed)
    : block_(block_config(d, h, d_ff), seed) {}

}  // namespace blockscope
