// TransformerBlock: the two residual sublayers in pre- or post-norm wiring, with optional inspection.
#include "blockscope/transformer_block.hpp"

#include <algorithm>
#include <array>
#include <span>
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

FeedForwardConfig BlockConfig::feed_forward() const { return {emb_dim, hidden_dim(), activation, ffn_bias}; }

int64_t BlockConfig::ffn_dominates_below_tokens() const {
  const int64_t extra = FeedForward::flops_per_token(feed_forward()) - MultiHeadAttention::projection_flops_per_token(attention());
  if (extra <= 0) return 0;
  const int64_t per_token = MultiHeadAttention::score_flops_per_token(attention(), 1);  // 4 d per token of n
  return (extra + per_token - 1) / per_token;  // the smallest n at which attention catches up
}

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
// The wiring: the book's TransformerBlock.forward as a list of steps, once per norm placement. The forward
// pass, the cached forward, the backward pass (the list in reverse) and inspection all walk this list, so
// a change of wiring is made here once.
// ---------------------------------------------------------------------------------------------------------
namespace {
// The tensors the steps pass along: the block input and BlockActs' six (N, C) intermediates.
enum Slot : uint8_t { kIn, kLn1, kAtt, kRes1, kLn2, kFf, kRes2, kSlots };
enum class Op : uint8_t { Norm1, Att, Add1, Norm2, Ff, Add2 };
// out = op(in); an addition is out = in (the shortcut) + drop_shortcut(branch).
struct Step {
  Op op;
  Slot in, out, branch = kIn;
};
constexpr Step kPreNorm[] = {{Op::Norm1, kIn, kLn1},        // x = self.norm1(x)
                             {Op::Att, kLn1, kAtt},         // x = self.att(x)
                             {Op::Add1, kIn, kRes1, kAtt},  // x = self.drop_shortcut(x) + shortcut
                             {Op::Norm2, kRes1, kLn2},      // x = self.norm2(x)
                             {Op::Ff, kLn2, kFf},           // x = self.ff(x)
                             {Op::Add2, kRes1, kRes2, kFf}};  // x = self.drop_shortcut(x) + shortcut
constexpr Step kPostNorm[] = {{Op::Att, kIn, kAtt},           // self.att(x)
                              {Op::Add1, kIn, kRes1, kAtt},   // x + self.drop_shortcut(...)
                              {Op::Norm1, kRes1, kLn1},       // x = self.norm1(...)
                              {Op::Ff, kLn1, kFf},            // self.ff(x)
                              {Op::Add2, kLn1, kRes2, kFf},   // x + self.drop_shortcut(...)
                              {Op::Norm2, kRes2, kLn2}};      // x = self.norm2(...)

std::span<const Step> steps_of(NormPlacement p) {
  if (p == NormPlacement::Pre) return kPreNorm;
  return kPostNorm;
}
constexpr bool is_add(Op op) { return op == Op::Add1 || op == Op::Add2; }
// The step of `op` in a list (each list has each op once: checked below).
constexpr const Step& find_step(std::span<const Step> steps, Op op) {
  for (const Step& s : steps)
    if (s.op == op) return s;
  return steps.front();
}
constexpr bool has_every_op(std::span<const Step> steps) {
  for (Op op : {Op::Norm1, Op::Att, Op::Add1, Op::Norm2, Op::Ff, Op::Add2})
    if (find_step(steps, op).op != op) return false;
  return steps.size() == 6;
}
static_assert(has_every_op(kPreNorm) && has_every_op(kPostNorm));
const Step& step_of(NormPlacement p, Op op) { return find_step(steps_of(p), op); }

// Inspection records the input, every step's output, and before each addition the dropped-out branch.
constexpr int64_t count_inspected(std::span<const Step> steps) {
  int64_t n = 1;
  for (const Step& s : steps) n += is_add(s.op) ? 2 : 1;
  return n;
}
static_assert(count_inspected(kPreNorm) == count_inspected(kPostNorm));

// The slots of `a` as written by the steps (the input is never written) and as read.
std::array<float*, kSlots> written(const BlockActs& a) {
  return {nullptr, a.ln1_out, a.att_out, a.res1, a.ln2_out, a.ff_out, a.res2};
}
std::array<const float*, kSlots> read(const BlockActs& a, const float* x) {
  return {x, a.ln1_out, a.att_out, a.res1, a.ln2_out, a.ff_out, a.res2};
}

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
  r.out = read(r, nullptr)[steps_of(cfg.norm).back().out];  // the last step's output
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

int64_t TransformerBlock::inspected_steps() { return count_inspected(kPreNorm); }

void TransformerBlock::forward(float* out, const float* inp, int64_t B, int64_t T, BlockInspection* insp) {
  const BlockActs& a = workspace(B, T);
  forward(a, inp, B, T);
  std::copy(a.out, a.out + B * T * cfg_.emb_dim, out);
  if (insp) inspect(a, inp, B, T, *insp);
}

void TransformerBlock::forward(const BlockActs& a, const float* x, int64_t B, int64_t T) {
  run(a, x, B, T, nullptr);
}

void TransformerBlock::forward_cached(float* out, const float* x, int64_t T, const KVSlot& kv) {
  const BlockActs& a = workspace(1, T);
  float* att_w = detail::grow_to(att_w_, to_size(checked_product("the cached attention weights",
                                                                  {cfg_.n_heads, T, kv.pos + T}),
                                                  "the cached attention weights"));
  forward_cached(out, x, T, kv, a, att_w, T);
}

void TransformerBlock::forward_cached(float* out, const float* x, int64_t T, const KVSlot& kv, const BlockActs& a,
                                     float* att_w, int64_t rows) {
  require(rows >= 0 && rows <= T, "a cached block pass over ", T, " tokens cannot output ", rows, " rows");
  const Cached cached{kv, att_w, out, rows > 0 ? rows : T};
  run(a, x, 1, T, &cached);
}

// The steps in order. Cached (B = 1, no dropout): attention reads and extends the KV cache, the norms keep no
// statistics, and the last step writes the caller's `out`. With cached->rows < T, the attention outputs only the
// last rows, and every later step works on them: a slot written before the attention (the input, a pre-norm's
// norm1) is then read from its row T - rows on.
void TransformerBlock::run(const BlockActs& a, const float* x, int64_t B, int64_t T, const Cached* cached) {
  const int64_t C = cfg_.emb_dim;
  int64_t N = B * T;
  const std::span<const Step> steps = steps_of(cfg_.norm);
  auto src = read(a, x);
  auto dst = written(a);
  if (cached) dst[steps.back().out] = cached->out;
  const bool stats = cached == nullptr;
  const int64_t skip = cached ? (T - cached->rows) * C : 0;  // where the kept rows start in a full slot
  for (const Step& s : steps) {
    const float* in = src[s.in];
    float* out = dst[s.out];
    switch (s.op) {
      case Op::Norm1: norm1_.forward(out, stats ? a.ln1_mean : nullptr, stats ? a.ln1_rstd : nullptr, in, N); break;
      case Op::Norm2: norm2_.forward(out, stats ? a.ln2_mean : nullptr, stats ? a.ln2_rstd : nullptr, in, N); break;
      case Op::Att:
        if (cached) {
          att_.forward_cached(out, cached->att_w, in, T, cached->kv, cached->rows);
          if (skip > 0) {  // from here on only the last rows: the slots written so far are read from there
            N = cached->rows;
            for (const Step& done : steps) {
              if (&done == &s) break;
              src[done.out] += skip;
            }
            src[kIn] += skip;
          }
        } else {
          att_.forward(out, a.att, in, B, T);
        }
        break;
      case Op::Ff: ff_.forward(out, a.fc_pre, a.fc_post, in, N); break;
      case Op::Add1:
      case Op::Add2:
        residual(out, cfg_.residual ? in : nullptr, src[s.branch], s.op == Op::Add1 ? a.drop1_mask : a.drop2_mask,
                 N * C);
        break;
    }
  }
}

// ---------------------------------------------------------------------------------------------------------
// Backward: the same steps in reverse. Each slot has its own gradient buffer, zeroed, into which every step
// that read the slot accumulates; the block input's is the caller's dinp (null: skipped).
// ---------------------------------------------------------------------------------------------------------
void TransformerBlock::backward(float* dinp, const float* dout, const float* x, const BlockActs& a, int64_t B,
                                int64_t T, const GradMap& g) {
  const int64_t N = B * T, n = N * cfg_.emb_dim;
  const std::span<const Step> steps = steps_of(cfg_.norm);
  const size_t per_slot = to_size(n, "the block's gradient buffers");
  grad_ws_.assign(per_slot * (kSlots - 1), 0.0f);
  std::array<float*, kSlots> d{};
  d[kIn] = dinp;
  for (int k = 1; k < kSlots; ++k) d[k] = grad_ws_.data() + per_slot * static_cast<size_t>(k - 1);
  std::copy(dout, dout + n, d[steps.back().out]);
  const auto src = read(a, x);
  for (auto it = steps.rbegin(); it != steps.rend(); ++it) {
    const Step& s = *it;
    const float* dy = d[s.out];
    float* dx = d[s.in];
    switch (s.op) {
      case Op::Norm1: norm1_.backward(dx, dy, src[s.in], a.ln1_mean, a.ln1_rstd, N, g); break;
      case Op::Norm2: norm2_.backward(dx, dy, src[s.in], a.ln2_mean, a.ln2_rstd, N, g); break;
      case Op::Att: att_.backward(dx, dy, src[s.in], a.att, B, T, g); break;
      case Op::Ff: ff_.backward(dx, dy, src[s.in], a.fc_pre, a.fc_post, N, g); break;
      case Op::Add1:
      case Op::Add2: {
        const float* mask = s.op == Op::Add1 ? a.drop1_mask : a.drop2_mask;
        float* db = d[s.branch];
        for (int64_t i = 0; i < n; ++i) db[i] += mask ? dy[i] * mask[i] : dy[i];  // through drop_shortcut
        if (cfg_.residual && dx)
          for (int64_t i = 0; i < n; ++i) dx[i] += dy[i];  // the shortcut
        break;
      }
    }
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

void record_step(BlockInspection& insp, const char* id, const char* op, const float* x, int64_t N, int64_t C) {
  StepStats& s = insp.steps.emplace_back();
  s.id = id;
  s.op = op;
  const size_t n = to_size(N, "step statistics");
  s.mean.resize(n);
  s.var.resize(n);
  s.norm.resize(n);
  row_mean_var(s.mean.data(), s.var.data(), x, N, C);
  row_l2_norm(s.norm.data(), x, N, C);
}

const char* step_id(Op op) {
  switch (op) {
    case Op::Norm1: return "norm1";
    case Op::Att: return "att";
    case Op::Add1: return "add1";
    case Op::Norm2: return "norm2";
    case Op::Ff: return "ff";
    case Op::Add2: return "add2";
  }
  return "?";
}
}  // namespace

void TransformerBlock::inspect(const BlockActs& a, const float* x, int64_t B, int64_t T,
                               BlockInspection& insp) const {
  const int64_t N = B * T, C = cfg_.emb_dim, H = cfg_.hidden_dim();
  const auto src = read(a, x);
  // drop_shortcut is the identity at inference: its statistics are those of the sublayer's output.
  const char* add = cfg_.residual ? "x + shortcut" : "no shortcut";  // a block without residual connections
  insp.steps.clear();
  record_step(insp, "input", "x (input)", x, N, C);
  for (const Step& s : steps_of(cfg_.norm)) {
    if (is_add(s.op)) {
      record_step(insp, s.op == Op::Add1 ? "drop1" : "drop2", "drop_shortcut", src[s.branch], N, C);
      record_step(insp, step_id(s.op), add, src[s.out], N, C);
    } else {
      record_step(insp, step_id(s.op), step_id(s.op), src[s.out], N, C);
    }
  }
  const Step& n1 = step_of(cfg_.norm, Op::Norm1);
  const Step& n2 = step_of(cfg_.norm, Op::Norm2);
  record_stats(insp.norm1.in, src[n1.in], N, C);
  record_stats(insp.norm1.out, src[n1.out], N, C);
  record_stats(insp.norm2.in, src[n2.in], N, C);
  record_stats(insp.norm2.out, src[n2.out], N, C);
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
