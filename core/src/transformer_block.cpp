// TransformerBlock: the two residual sublayers in pre- or post-norm wiring, with optional inspection.
#include "blockscope/transformer_block.hpp"

#include <algorithm>
#include <utility>

#include "blockscope/error.hpp"
#include "blockscope/memory_budget.hpp"
#include "blockscope/ops.hpp"
#include "grow_only.hpp"

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
  using L = SizeLimits;
  require(emb_dim > 0, "emb_dim must be positive, got ", emb_dim);
  require(emb_dim <= L::kMaxEmbDim, "emb_dim ", emb_dim, " exceeds the limit of ", L::kMaxEmbDim);
  require(n_heads > 0, "n_heads must be positive, got ", n_heads);
  require(emb_dim % n_heads == 0, "emb_dim (", emb_dim, ") must be divisible by n_heads (", n_heads, ")");
  require(context_length > 0, "context_length must be positive, got ", context_length);
  require(context_length <= L::kMaxContext, "context_length ", context_length, " exceeds the limit of ",
          L::kMaxContext);
  require(ffn_hidden >= 0, "ffn_hidden must be >= 0 (0 means 4 * emb_dim), got ", ffn_hidden);
  require(ffn_hidden <= L::kMaxFfnHidden, "ffn_hidden ", ffn_hidden, " exceeds the limit of ", L::kMaxFfnHidden);
  attention().validate();
  feed_forward().validate();
}

int64_t TransformerBlock::num_params(const BlockConfig& cfg) {
  cfg.validate();
  const char* what = "the block's parameter count";
  const int64_t n = checked_add(MultiHeadAttention::num_params(cfg.attention()),
                                FeedForward::num_params(cfg.feed_forward()), what);
  return checked_add(n, checked_mul(2, LayerNorm::num_params(cfg.emb_dim), what), what);
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
  // The workspace (attention weights B x NH x T x T included), and as much again for inspection's copies.
  const int64_t B = x.dim(0), T = x.dim(1);
  const char* what = "the block's activation size";
  const int64_t acts = BlockActs::size(cfg_, B, T, false);
  MemoryBudget{}.require_fits({{detail::concat("a TransformerBlock forward over ", B, " x ", T, " tokens",
                                               inspect ? " with inspection" : ""),
                                float_bytes(inspect ? checked_mul(2, acts, what) : acts, what)}});
  Tensor y(x.shape);
  forward(y.ptr(), x.ptr(), x.dim(0), x.dim(1), inspect);
  return y;
}

// ---------------------------------------------------------------------------------------------------------
// Activation memory
// ---------------------------------------------------------------------------------------------------------
namespace {
// Walks the BlockActs layout: with mem == null it only counts.
int64_t layout(BlockActs* a, float* mem, const BlockConfig& cfg, int64_t B, int64_t T, bool dropout) {
  const char* what = "the block's activation size";
  require(B > 0 && T > 0, "block activations need B > 0 and T > 0, got B=", B, " T=", T);
  const int64_t N = checked_mul(B, T, what), C = cfg.emb_dim, H = cfg.hidden_dim();
  const int64_t A = checked_product(what, {B, cfg.n_heads, T, T});
  checked_mul(N, C, what);
  checked_mul(N, H, what);
  int64_t used = 0;
  const auto take = [&](float*& p, int64_t n) {
    if (mem) p = mem + used;
    used = checked_add(used, n, what);
  };
  BlockActs dummy;
  BlockActs& r = a ? *a : dummy;
  for (float** p : {&r.ln1_mean, &r.ln1_rstd, &r.ln2_mean, &r.ln2_rstd}) take(*p, N);
  for (float** p : {&r.ln1_out, &r.att.q, &r.att.k, &r.att.v, &r.att.ctx, &r.att_out, &r.res1, &r.ln2_out,
                    &r.ff_out, &r.res2})
    take(*p, N * C);
  take(r.fc_pre, N * H);
  take(r.fc_post, N * H);
  take(r.att.att, A);
  if (dropout) {
    take(r.att.att_mask, A);
    take(r.drop1_mask, N * C);
    take(r.drop2_mask, N * C);
  }
  r.out = cfg.norm == NormPlacement::Pre ? r.res2 : r.ln2_out;
  return used;
}

void fill_mask(float* mask, int64_t n, float p, Rng& rng) {
  const float keep_scale = 1.0f / static_cast<float>(1.0 - static_cast<double>(p));
  for (int64_t i = 0; i < n; ++i) mask[i] = rng.uniform() < p ? 0.0f : keep_scale;
}
}  // namespace

int64_t BlockActs::size(const BlockConfig& cfg, int64_t B, int64_t T, bool dropout) {
  return layout(nullptr, nullptr, cfg, B, T, dropout);
}

BlockActs BlockActs::carve(float* mem, const BlockConfig& cfg, int64_t B, int64_t T, bool dropout) {
  BlockActs a;
  layout(&a, mem, cfg, B, T, dropout);
  return a;
}

void BlockActs::draw_dropout(Rng& rng, float p, int64_t B, int64_t T, const BlockConfig& cfg) const {
  const int64_t N = B * T;
  fill_mask(att.att_mask, B * cfg.n_heads * T * T, p, rng);
  fill_mask(drop1_mask, N * cfg.emb_dim, p, rng);
  fill_mask(drop2_mask, N * cfg.emb_dim, p, rng);
}

const BlockActs& TransformerBlock::workspace(int64_t B, int64_t T) {
  float* mem = detail::grow_to(ws_, to_size(BlockActs::size(cfg_, B, T, false), "the block's activations"));
  ws_acts_ = BlockActs::carve(mem, cfg_, B, T, false);
  return ws_acts_;
}

// ---------------------------------------------------------------------------------------------------------
// Forward: the book's TransformerBlock.forward, one op per line
// ---------------------------------------------------------------------------------------------------------
namespace {
// out = x + drop_shortcut(sub), the shortcut connection; mask null = no dropout; x null = no shortcut
// (a block without residual connections): out = drop_shortcut(sub).
void residual(float* out, const float* x, const float* sub, const float* mask, int64_t n) {
  if (x == nullptr) {
    for (int64_t i = 0; i < n; ++i) out[i] = mask ? sub[i] * mask[i] : sub[i];
  } else if (mask) {
    for (int64_t i = 0; i < n; ++i) out[i] = x[i] + sub[i] * mask[i];
  } else {
    for (int64_t i = 0; i < n; ++i) out[i] = x[i] + sub[i];
  }
}
}  // namespace

void TransformerBlock::forward(float* out, const float* inp, int64_t B, int64_t T, BlockInspection* insp) {
  const BlockActs& a = workspace(B, T);
  forward(a, inp, B, T);
  std::copy(a.out, a.out + B * T * cfg_.emb_dim, out);
  if (insp) inspect(a, inp, B, T, *insp);
}

void TransformerBlock::forward(const BlockActs& a, const float* x, int64_t B, int64_t T) {
  const int64_t N = B * T, C = cfg_.emb_dim;
  const bool sc = cfg_.residual;  // the shortcut connections (residual(): a null source drops them)
  if (cfg_.norm == NormPlacement::Pre) {
    norm1_.forward(a.ln1_out, a.ln1_mean, a.ln1_rstd, x, N);      // x = self.norm1(x)
    att_.forward(a.att_out, a.att, a.ln1_out, B, T);                // x = self.att(x)
    residual(a.res1, sc ? x : nullptr, a.att_out, a.drop1_mask, N * C);       // x = self.drop_shortcut(x) + shortcut
    norm2_.forward(a.ln2_out, a.ln2_mean, a.ln2_rstd, a.res1, N);  // x = self.norm2(x)
    ff_.forward(a.ff_out, a.fc_pre, a.fc_post, a.ln2_out, N);       // x = self.ff(x)
    residual(a.res2, sc ? a.res1 : nullptr, a.ff_out, a.drop2_mask, N * C);   // x = self.drop_shortcut(x) + shortcut
  } else {
    att_.forward(a.att_out, a.att, x, B, T);                        // self.att(x)
    residual(a.res1, sc ? x : nullptr, a.att_out, a.drop1_mask, N * C);       // x + self.drop_shortcut(...)
    norm1_.forward(a.ln1_out, a.ln1_mean, a.ln1_rstd, a.res1, N);  // x = self.norm1(...)
    ff_.forward(a.ff_out, a.fc_pre, a.fc_post, a.ln1_out, N);       // self.ff(x)
    residual(a.res2, sc ? a.ln1_out : nullptr, a.ff_out, a.drop2_mask, N * C);  // x + self.drop_shortcut(...)
    norm2_.forward(a.ln2_out, a.ln2_mean, a.ln2_rstd, a.res2, N);  // x = self.norm2(...)
  }
}

void TransformerBlock::forward_cached(float* out, const float* x, int64_t T, const KVSlot& kv) {
  const BlockActs& a = workspace(1, T);
  float* att_w = detail::grow_to(att_w_, to_size(checked_product("the cached attention weights",
                                                                  {cfg_.n_heads, T, kv.pos + T}),
                                                  "the cached attention weights"));
  forward_cached(out, x, T, kv, a, att_w);
}

// The same op list over a KV cache (B = 1, no dropout, no inspection).
void TransformerBlock::forward_cached(float* out, const float* x, int64_t T, const KVSlot& kv, const BlockActs& a,
                                     float* att_w) {
  const int64_t C = cfg_.emb_dim;
  const bool sc = cfg_.residual;
  if (cfg_.norm == NormPlacement::Pre) {
    norm1_.forward(a.ln1_out, nullptr, nullptr, x, T);
    att_.forward_cached(a.att_out, att_w, a.ln1_out, T, kv);
    residual(a.res1, sc ? x : nullptr, a.att_out, nullptr, T * C);
    norm2_.forward(a.ln2_out, nullptr, nullptr, a.res1, T);
    ff_.forward(a.ff_out, a.fc_pre, a.fc_post, a.ln2_out, T);
    residual(out, sc ? a.res1 : nullptr, a.ff_out, nullptr, T * C);
  } else {
    att_.forward_cached(a.att_out, att_w, x, T, kv);
    residual(a.res1, sc ? x : nullptr, a.att_out, nullptr, T * C);
    norm1_.forward(a.ln1_out, nullptr, nullptr, a.res1, T);
    ff_.forward(a.ff_out, a.fc_pre, a.fc_post, a.ln1_out, T);
    residual(a.res2, sc ? a.ln1_out : nullptr, a.ff_out, nullptr, T * C);
    norm2_.forward(out, nullptr, nullptr, a.res2, T);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Backward: the forward's op list in reverse. d1 carries the residual stream's gradient, d2 a sublayer
// output's, d3 a sublayer input's.
// ---------------------------------------------------------------------------------------------------------
namespace {
void scaled_copy(float* out, const float* g, const float* mask, int64_t n) {
  if (mask)
    for (int64_t i = 0; i < n; ++i) out[i] = g[i] * mask[i];
  else
    std::copy(g, g + n, out);
}
void accumulate(float* out, const float* g, int64_t n) {
  if (out)
    for (int64_t i = 0; i < n; ++i) out[i] += g[i];
}
}  // namespace

void TransformerBlock::backward(float* dinp, const float* dout, const float* x, const BlockActs& a, int64_t B,
                                int64_t T, const GradMap& g) {
  const int64_t N = B * T, C = cfg_.emb_dim, n = N * C;
  for (auto* buf : {&d1_, &d2_, &d3_}) buf->assign(to_size(n, "the block's gradient buffers"), 0.0f);
  float *d1 = d1_.data(), *d2 = d2_.data(), *d3 = d3_.data();
  const bool sc = cfg_.residual;  // without shortcuts, the gradient reaches x only through the sublayers
  if (cfg_.norm == NormPlacement::Pre) {
    if (sc) std::copy(dout, dout + n, d1);                            // d res1 (the shortcut)
    scaled_copy(d2, dout, a.drop2_mask, n);                           // d ff_out
    ff_.backward(d3, d2, a.ln2_out, a.fc_pre, a.fc_post, N, g);       // d ln2_out
    norm2_.backward(d1, d3, a.res1, a.ln2_mean, a.ln2_rstd, N, g);    // d res1 += through norm2
    if (sc) accumulate(dinp, d1, n);                                  // d x (the shortcut)
    scaled_copy(d2, d1, a.drop1_mask, n);                             // d att_out
    std::fill(d3, d3 + n, 0.0f);
    att_.backward(d3, d2, a.ln1_out, a.att, B, T, g);                 // d ln1_out
    norm1_.backward(dinp, d3, x, a.ln1_mean, a.ln1_rstd, N, g);       // d x += through norm1
  } else {
    norm2_.backward(d1, dout, a.res2, a.ln2_mean, a.ln2_rstd, N, g);  // d res2
    scaled_copy(d2, d1, a.drop2_mask, n);                             // d ff_out
    if (!sc) std::fill(d1, d1 + n, 0.0f);                             // no shortcut from res2 to ln1_out
    ff_.backward(d1, d2, a.ln1_out, a.fc_pre, a.fc_post, N, g);       // d ln1_out = d res2 + through ff
    norm1_.backward(d3, d1, a.res1, a.ln1_mean, a.ln1_rstd, N, g);    // d res1
    if (sc) accumulate(dinp, d3, n);                                  // d x (the shortcut)
    scaled_copy(d2, d3, a.drop1_mask, n);                             // d att_out
    att_.backward(dinp, d2, x, a.att, B, T, g);                       // d x += through att
  }
}

// ---------------------------------------------------------------------------------------------------------
// Inspection: per-token statistics of each step, in the order the book's forward runs them
// ---------------------------------------------------------------------------------------------------------
namespace {
void record_stats(RowStats& s, const float* x, int64_t N, int64_t C) {
  s.mean.resize(to_size(N, "LayerNorm statistics"));
  s.var.resize(to_size(N, "LayerNorm statistics"));
  row_mean_var(s.mean.data(), s.var.data(), x, N, C);
}

void record_step(BlockInspection& insp, const char* op, const float* x, int64_t N, int64_t C) {
  StepStats& s = insp.steps.emplace_back();
  s.op = op;
  const size_t n = to_size(N, "step statistics");
  s.mean.resize(n);
  s.var.resize(n);
  s.norm.resize(n);
  row_mean_var(s.mean.data(), s.var.data(), x, N, C);
  row_l2_norm(s.norm.data(), x, N, C);
}
}  // namespace

void TransformerBlock::inspect(const BlockActs& a, const float* x, int64_t B, int64_t T,
                               BlockInspection& insp) const {
  const int64_t N = B * T, C = cfg_.emb_dim, H = cfg_.hidden_dim();
  const bool pre = cfg_.norm == NormPlacement::Pre;
  // drop_shortcut is the identity at inference: its statistics are those of the sublayer's output.
  using Step = std::pair<const char*, const float*>;
  const char* add = cfg_.residual ? "x + shortcut" : "no shortcut";  // a block without residual connections
  const std::vector<Step> steps =
      pre ? std::vector<Step>{{"x (input)", x}, {"norm1", a.ln1_out}, {"att", a.att_out},
                              {"drop_shortcut", a.att_out}, {add, a.res1}, {"norm2", a.ln2_out},
                              {"ff", a.ff_out}, {"drop_shortcut", a.ff_out}, {add, a.res2}}
          : std::vector<Step>{{"x (input)", x}, {"att", a.att_out}, {"drop_shortcut", a.att_out},
                              {add, a.res1}, {"norm1", a.ln1_out}, {"ff", a.ff_out},
                              {"drop_shortcut", a.ff_out}, {add, a.res2}, {"norm2", a.ln2_out}};
  insp.steps.clear();
  for (const auto& [op, values] : steps) record_step(insp, op, values, N, C);
  record_stats(insp.norm1.in, pre ? x : a.res1, N, C);
  record_stats(insp.norm1.out, a.ln1_out, N, C);
  record_stats(insp.norm2.in, pre ? a.res1 : a.res2, N, C);
  record_stats(insp.norm2.out, a.ln2_out, N, C);
  insp.ffn_hidden_pre.assign(a.fc_pre, a.fc_pre + N * H);
  insp.ffn_hidden_post.assign(a.fc_post, a.fc_post + N * H);
  insp.attn_weights.assign(a.att.att, a.att.att + B * cfg_.n_heads * T * T);
  insp.residual_norm.resize(to_size(N, "residual norms"));
  row_l2_norm(insp.residual_norm.data(), a.out, N, C);
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
