// GPTModel: config handling, parameter layout, seeded init and the forward pass.
#include "blockscope/gpt_model.hpp"

#include <algorithm>
#include <cmath>

#include "blockscope/checked.hpp"
#include "blockscope/error.hpp"
#include "blockscope/ops.hpp"
#include "grow_only.hpp"

namespace blockscope {

GPTConfig GPTConfig::gpt2_124m() { return GPTConfig{}; }

BlockConfig GPTConfig::block() const {
  BlockConfig b;
  b.emb_dim = emb_dim;
  b.context_length = context_length;
  b.n_heads = n_heads;
  b.drop_rate = drop_rate;
  b.qkv_bias = qkv_bias;
  b.norm = norm;
  b.ln_eps = layer_norm_epsilon;
  b.ffn_hidden = ffn_hidden;
  b.activation = activation;
  b.residual = residual;
  return b;
}

void GPTConfig::validate() const {
  using L = SizeLimits;
  require(vocab_size > 0, "vocab_size must be positive, got ", vocab_size);
  require(context_length > 0, "context_length must be positive, got ", context_length);
  require(emb_dim > 0, "emb_dim must be positive, got ", emb_dim);
  require(n_heads > 0, "n_heads must be positive, got ", n_heads);
  require(n_layers > 0, "n_layers must be positive, got ", n_layers);
  require(n_layers <= L::kMaxLayers, "n_layers ", n_layers, " exceeds the limit of ", L::kMaxLayers);
  require(emb_dim <= L::kMaxEmbDim, "emb_dim ", emb_dim, " exceeds the limit of ", L::kMaxEmbDim);
  require(context_length <= L::kMaxContext, "context_length ", context_length, " exceeds the limit of ",
          L::kMaxContext);
  require(n_heads <= emb_dim, "n_heads (", n_heads, ") must not exceed emb_dim (", emb_dim, ")");
  require(ffn_hidden <= L::kMaxFfnHidden, "ffn_hidden ", ffn_hidden, " exceeds the limit of ", L::kMaxFfnHidden);
  require(emb_dim % n_heads == 0, "emb_dim (", emb_dim, ") must be divisible by n_heads (", n_heads, ")");
  require(std::isfinite(drop_rate) && drop_rate >= 0.0 && drop_rate < 1.0, "drop_rate must be in [0, 1), got ",
          drop_rate);
  require(std::isfinite(layer_norm_epsilon) && layer_norm_epsilon > 0.0f,
          "layer_norm_epsilon must be a positive finite number, got ", layer_norm_epsilon);
  // Token ids cross the API as int32.
  require(vocab_size <= INT32_MAX, "vocab_size ", vocab_size, " does not fit int32 token ids");
  require(ffn_hidden >= 0, "ffn_hidden must be >= 0 (0 means 4 * emb_dim), got ", ffn_hidden);
}

int64_t GPTModel::count_parameters(const GPTConfig& cfg) {
  cfg.validate();
  const int64_t C = cfg.emb_dim, V = cfg.vocab_size;
  const char* what = "the model's parameter count";
  const int64_t emb = checked_mul(V, C, what);
  int64_t n = emb;                                                                       // tok_emb
  n = checked_add(n, checked_mul(cfg.context_length, C, what), what);                   // pos_emb
  n = checked_add(n, checked_mul(cfg.n_layers, TransformerBlock::num_params(cfg.block()), what), what);  // trf_blocks
  n = checked_add(n, LayerNorm::num_params(C), what);                                   // final_norm
  return cfg.tie_weights ? n : checked_add(n, emb, what);                               // out_head (no bias)
}

int64_t GPTModel::parameter_bytes(const GPTConfig& cfg) {
  return float_bytes(count_parameters(cfg), "the model's parameter bytes");
}

int64_t GPTModel::forward_bytes(const GPTConfig& cfg, int64_t B, int64_t T, bool inspect) {
  cfg.validate();
  require(B > 0 && T > 0, "a forward pass needs B > 0 and T > 0, got B=", B, " T=", T);
  const char* what = "the forward pass's activation size";
  const int64_t N = checked_mul(B, T, what), C = cfg.emb_dim;
  const BlockConfig bc = cfg.block();
  int64_t n = checked_mul(2 * C, N, what);                                    // residual stream, final norm
  n = checked_add(n, BlockActs::size(bc, B, T, false), what);                 // one block's activations
  n = checked_add(n, checked_mul(N, cfg.vocab_size, what), what);             // logits
  if (inspect) {
    // Per layer: each inspected step x (mean, var, norm), 2 norms x (in, out) x (mean, var), residual norm;
    // FFN hidden before and after the activation: 2 N H; attention weights B NH T T.
    const int64_t att = checked_product(what, {B, cfg.n_heads, T, T});
    const int64_t per_token = 3 * TransformerBlock::inspected_steps() + 2 * 2 * 2 + 1;
    int64_t layer = checked_add(checked_mul(per_token, N, what), checked_product(what, {2, N, bc.hidden_dim()}), what);
    layer = checked_add(layer, att, what);
    n = checked_add(n, checked_mul(cfg.n_layers, layer, what), what);
    n = checked_add(n, checked_mul(4, N, what), what);                        // final norm statistics
  }
  return float_bytes(n, what);
}

int64_t GPTModel::cached_forward_bytes(const GPTConfig& cfg, int64_t T, int64_t cached) {
  cfg.validate();
  require(T > 0 && cached >= 0, "a cached forward needs T > 0 and cached >= 0, got T=", T, " cached=", cached);
  const char* what = "the cached forward's activation size";
  const int64_t C = cfg.emb_dim, S = checked_add(cached, T, what);
  int64_t n = checked_product(what, {5, T, C});                               // x, y, normed; attention q, ctx
  n = checked_add(n, BlockActs::size(cfg.block(), 1, T, false), what);        // the block workspace
  n = checked_add(n, checked_product(what, {cfg.n_heads, T, S}), what);       // attention weights
  n = checked_add(n, checked_mul(T, cfg.vocab_size, what), what);             // logits
  return float_bytes(n, what);
}

void GPTModel::set_memory_budget(const MemoryBudget& budget) {
  budget.require_fits({{detail::concat("a model of ", num_parameters(), " parameters"), stored_parameter_bytes(), true}});
  budget_ = budget;
}

void GPTModel::require_memory(std::initializer_list<MemoryBudget::Part> parts, const char* hint) const {
  std::vector<MemoryBudget::Part> all(parts);
  all.emplace_back("the model's parameters", stored_parameter_bytes(), true);
  budget_.require_fits(all.data(), all.data() + all.size(), hint);
}

namespace {
// The parameter count, once the config is valid and its weights fit the budget.
int64_t budgeted_parameters(const GPTConfig& cfg, const MemoryBudget& budget) {
  const int64_t n = GPTModel::count_parameters(cfg);
  budget.require_fits({{detail::concat("a model of ", n, " parameters (", cfg.n_layers, " layers, emb_dim ",
                                       cfg.emb_dim, ", vocab ", cfg.vocab_size, ")"),
                        float_bytes(n, "the model's parameter bytes")}});
  return n;
}

// Which parameters an int8 model stores as int8: the token embedding, an untied head and every Linear matrix
// of the blocks (their other parameters are LayerNorm scales/shifts and biases). int8_numel counts them.
bool int8_parameter(const std::string& name, const Shape&) {
  return name == "tok_emb.weight" || name == "out_head.weight" ||
         (name.starts_with("trf_blocks.") && name.ends_with(".weight"));
}
int64_t int8_numel(const GPTConfig& cfg) {
  const int64_t C = cfg.emb_dim, H = cfg.block().hidden_dim();
  const char* what = "the model's int8 parameter count";
  const int64_t emb = checked_mul(cfg.vocab_size, C, what);
  const int64_t block = checked_add(checked_product(what, {4, C, C}), checked_product(what, {2, C, H}), what);
  return checked_add(checked_mul(cfg.n_layers, block, what), cfg.tie_weights ? emb : checked_mul(2, emb, what),
                     what);
}
ParamArena make_arena(const GPTConfig& cfg, const MemoryBudget& budget, WeightFormat weights) {
  const int64_t n = budgeted_parameters(cfg, budget);
  if (weights == WeightFormat::F32) return ParamArena(n);
  return ParamArena(n - int8_numel(cfg), int8_parameter);
}

std::vector<TransformerBlock> make_blocks(ParamArena& arena, const GPTConfig& cfg) {
  std::vector<TransformerBlock> blocks;
  blocks.reserve(static_cast<size_t>(cfg.n_layers));
  for (int64_t l = 0; l < cfg.n_layers; ++l)
    blocks.emplace_back(arena, "trf_blocks." + std::to_string(l) + ".", cfg.block());
  return blocks;
}
}  // namespace

// Members are built in declaration order, so the arena holds the parameters in state_dict order:
// tok_emb, pos_emb, trf_blocks.*, final_norm, out_head.
GPTModel::GPTModel(const GPTConfig& cfg, uint64_t seed, const MemoryBudget& budget)
    : GPTModel(cfg, Uninitialized{}, budget) {
  init(seed);
}

GPTModel::GPTModel(const GPTConfig& cfg, Uninitialized, const MemoryBudget& budget, WeightFormat weights)
    : cfg_(cfg),
      budget_(budget),
      params_(make_arena(cfg, budget, weights)),
      tok_emb_(params_.take("tok_emb.weight", {cfg.vocab_size, cfg.emb_dim})),
      pos_emb_(params_.take("pos_emb.weight", {cfg.context_length, cfg.emb_dim})),
      blocks_(make_blocks(params_, cfg)),
      final_norm_(params_, "final_norm.", cfg.emb_dim, cfg.layer_norm_epsilon) {
  // With weight tying (GPT-2) there is no out_head matrix: logits = final_norm(x) @ tok_emb^T.
  if (!cfg.tie_weights) out_head_ = Linear(params_, "out_head.", cfg.emb_dim, cfg.vocab_size, false);
  require(params_.used() == params_.capacity(), "internal: parameter layout mismatch (", params_.used(), " vs ",
          params_.capacity(), ")");
  weights_ = weights;
  tok_emb_q8_ = params_.q8("tok_emb.weight");
}

void GPTModel::require_trainable(const char* what) const {
  require(weights_ == WeightFormat::F32, "cannot ", what,
          ": the model has int8 weights, which are inference-only (load it with float32 weights to train)");
}

void GPTModel::init(uint64_t seed) {
  require_trainable("initialize it randomly");
  Rng rng(seed);
  const int64_t C = cfg_.emb_dim;
  for (int64_t i = 0, n = cfg_.vocab_size * C; i < n; ++i) tok_emb_[i] = rng.normal();       // nn.Embedding: N(0, 1)
  for (int64_t i = 0; i < cfg_.context_length * C; ++i) pos_emb_[i] = rng.normal();
  for (auto& block : blocks_) block.init(rng);
  final_norm_.reset_parameters();
  if (!cfg_.tie_weights) out_head_.init(rng);
}

void GPTModel::set_norm_placement(NormPlacement p) {
  cfg_.norm = p;
  for (auto& block : blocks_) block.set_norm_placement(p);
}

void GPTModel::check_ids(std::span<const int32_t> ids, int64_t B, int64_t T) const {
  require(B > 0, "batch size must be positive, got ", B);
  require(T > 0, "sequence length must be positive, got ", T);
  require(T <= cfg_.context_length, "sequence length ", T, " exceeds context_length ", cfg_.context_length);
  const int64_t n = checked_mul(B, T, "the number of token ids B x T");
  require(static_cast<int64_t>(ids.size()) == n, "expected ", B, " x ", T, " = ", n, " token ids, got ", ids.size());
  for (size_t i = 0; i < ids.size(); ++i)
    require(ids[i] >= 0 && ids[i] < cfg_.vocab_size, "token id ", ids[i], " at position ", i,
            " is outside the vocabulary [0, ", cfg_.vocab_size, ")");
}

int64_t KVCache::bytes(const GPTConfig& cfg) {
  cfg.validate();
  return float_bytes(checked_product("the KV cache size", {2, cfg.n_layers, cfg.context_length, cfg.emb_dim}),
                     "the KV cache size");
}

namespace {
std::string kv_cache_what(const GPTConfig& cfg) {
  return detail::concat("the KV cache for ", cfg.n_layers, " layers x context ", cfg.context_length, " x ",
                        cfg.emb_dim);
}
}  // namespace

KVCache::KVCache(const GPTConfig& cfg, const MemoryBudget& budget)
    : n_layers(cfg.n_layers), context_length(cfg.context_length), dim(cfg.emb_dim) {
  budget.require_fits({{kv_cache_what(cfg), bytes(cfg)}, {"the model's parameters", GPTModel::parameter_bytes(cfg)}});
  allocate();
}

KVCache::KVCache(const GPTModel& model)
    : n_layers(model.config().n_layers), context_length(model.config().context_length), dim(model.config().emb_dim) {
  model.require_memory({{kv_cache_what(model.config()), bytes(model.config())}});
  allocate();
}

void KVCache::allocate() {
  k.assign(to_size(n_layers * context_length * dim, "the KV cache size"), 0.0f);
  v.assign(k.size(), 0.0f);
}

KVSlot KVCache::slot(int64_t layer) {
  const int64_t off = layer * context_length * dim;
  return {k.data() + off, v.data() + off, context_length, length};
}

// x = tok_emb(ids) + pos_emb(pos0 + arange(T)); drop_emb = identity
void GPTModel::embed(float* x, std::span<const int32_t> ids, int64_t B, int64_t T, int64_t pos0) const {
  const int64_t C = cfg_.emb_dim;
  for (int64_t b = 0; b < B; ++b)
    for (int64_t t = 0; t < T; ++t) {
      const int64_t id = ids[static_cast<size_t>(b * T + t)];
      float* o = x + (b * T + t) * C;
      const float* te = tok_emb_ ? tok_emb_ + id * C : o;
      if (tok_emb_q8_) tok_emb_q8_->dequantize_row(id, o);  // the int8 row, dequantized in place
      const float* pe = pos_emb_ + (pos0 + t) * C;
      for (int64_t c = 0; c < C; ++c) o[c] = te[c] + pe[c];
    }
}

// logits = out_head(final_norm(x)), recording the final norm's statistics when inspecting.
void GPTModel::final_logits(float* logits, const float* x, int64_t N, bool inspect) {
  const int64_t C = cfg_.emb_dim;
  final_norm_.forward(normed_.data(), nullptr, nullptr, x, N);
  if (inspect) {
    auto& s = inspection_.final_norm;
    for (RowStats* r : {&s.in, &s.out}) {
        r->mean.resize(to_size(N, "final-norm statistics"));
      r->var.resize(to_size(N, "final-norm statistics"));
    }
    row_mean_var(s.in.mean.data(), s.in.var.data(), x, N, C);
    row_mean_var(s.out.mean.data(), s.out.var.data(), normed_.data(), N, C);
  }
  if (cfg_.tie_weights && tok_emb_q8_) return tok_emb_q8_->linear_forward(logits, normed_.data(), nullptr, N);
  if (!cfg_.tie_weights) return out_head_.forward(logits, normed_.data(), N);
  linear_forward(logits, normed_.data(), tok_emb_, nullptr, N, C, cfg_.vocab_size);
}

Tensor GPTModel::forward(std::span<const int32_t> ids, int64_t B, int64_t T, bool inspect) {
  check_ids(ids, B, T);
  require_memory({{detail::concat("the forward pass over ", B, " x ", T, " tokens (logits ", B, " x ", T, " x ",
                                  cfg_.vocab_size, ", attention ", B, " x ", cfg_.n_heads, " x ", T, " x ", T,
                                  inspect ? ", with inspection" : "", ")"),
                   forward_bytes(cfg_, B, T, inspect)}});
  const int64_t C = cfg_.emb_dim, N = B * T;
  detail::grow_to(x_, to_size(N * C, "the residual stream"));
  detail::grow_to(normed_, to_size(N * C, "the residual stream"));
  inspection_ = ForwardInspection{};
  if (inspect) {
    inspection_ = ForwardInspection{B, T, C, cfg_.block().hidden_dim(), cfg_.n_heads, {}, {}};
    inspection_.layers.resize(blocks_.size());
  }
  const BlockConfig bc = cfg_.block();
  float* mem = detail::grow_to(acts_, to_size(BlockActs::size(bc, B, T, false), "a block's activations"));
  const BlockActs a = BlockActs::carve(mem, bc, B, T, false);
  embed(x_.data(), ids, B, T, 0);
  for (size_t l = 0; l < blocks_.size(); ++l) {  // x = trf_blocks(x), one block's activations at a time
    blocks_[l].forward(a, x_.data(), B, T);
    if (inspect) blocks_[l].inspect(a, x_.data(), B, T, inspection_.layers[l]);
    std::copy(a.out, a.out + N * C, x_.data());
  }
  Tensor logits({B, T, cfg_.vocab_size});
  final_logits(logits.ptr(), x_.data(), N, inspect);
  trim_workspace();
  return logits;
}

Tensor GPTModel::residual_streams(std::span<const int32_t> ids) {
  const auto T = static_cast<int64_t>(ids.size());
  check_ids(ids, 1, T);
  const int64_t C = cfg_.emb_dim, L = cfg_.n_layers;
  const int64_t stream_floats = checked_product("the residual streams", {L + 1, T, C});
  require_memory({{detail::concat("the residual stream of ", L + 1, " layers x ", T, " tokens"),
                   float_bytes(stream_floats, "the residual streams")},
                  {"the forward pass", forward_bytes(cfg_, 1, T, false)}});
  Tensor out({L + 1, T, C});
  detail::grow_to(x_, to_size(T * C, "the residual stream"));
  const BlockConfig bc = cfg_.block();
  float* mem = detail::grow_to(acts_, to_size(BlockActs::size(bc, 1, T, false), "a block's activations"));
  const BlockActs a = BlockActs::carve(mem, bc, 1, T, false);
  embed(x_.data(), ids, 1, T, 0);
  std::copy(x_.data(), x_.data() + T * C, out.ptr());
  for (size_t l = 0; l < blocks_.size(); ++l) {
    blocks_[l].forward(a, x_.data(), 1, T);
    std::copy(a.out, a.out + T * C, x_.data());
    std::copy(a.out, a.out + T * C, out.ptr() + static_cast<int64_t>(l + 1) * T * C);
  }
  trim_workspace();
  return out;
}

void GPTModel::head_logits(float* logits, const float* x, int64_t N) {
  detail::grow_to(normed_, to_size(checked_mul(N, cfg_.emb_dim, "the final norm's rows"), "the final norm's rows"));
  final_logits(logits, x, N, false);
}

Tensor GPTModel::forward_cached(std::span<const int32_t> ids, KVCache& cache, bool last_only) {
  const auto T = static_cast<int64_t>(ids.size());
  require(cache.n_layers == cfg_.n_layers && cache.context_length == cfg_.context_length && cache.dim == cfg_.emb_dim,
          "KV cache was made for another model configuration");
  require(T > 0, "forward_cached needs at least one new token");
  require(cache.length + T <= cfg_.context_length, "cannot append ", T, " tokens to a KV cache holding ", cache.length,
          ": context_length is ", cfg_.context_length);
  check_ids(ids, 1, T);
  require_memory({{detail::concat("a cached forward of ", T, " tokens after ", cache.length),
                   cached_forward_bytes(cfg_, T, cache.length)},
                  {"the KV cache", KVCache::bytes(cfg_), true}});
  const int64_t C = cfg_.emb_dim, rows = last_only ? 1 : T;
  const size_t n = to_size(T * C, "the residual stream");
  for (FloatBuffer* b : {&x_, &y_, &normed_}) detail::grow_to(*b, n);
  // One workspace for all blocks, as in forward(): each block's activations are dead once the next runs.
  const BlockConfig bc = cfg_.block();
  float* mem = detail::grow_to(acts_, to_size(BlockActs::size(bc, 1, T, false), "a block's activations"));
  const BlockActs a = BlockActs::carve(mem, bc, 1, T, false);
  float* att_w = detail::grow_to(att_w_, to_size(checked_product("the cached attention weights",
                                                                  {cfg_.n_heads, T, cache.length + T}),
                                                  "the cached attention weights"));
  inspection_ = ForwardInspection{};
  embed(x_.data(), ids, 1, T, cache.length);
  for (size_t l = 0; l < blocks_.size(); ++l) {  // the last block outputs only the rows asked for
    const int64_t out_rows = l + 1 == blocks_.size() ? rows : T;
    blocks_[l].forward_cached(y_.data(), x_.data(), T, cache.slot(static_cast<int64_t>(l)), a, att_w, out_rows);
    x_.swap(y_);
  }
  cache.length += T;
  Tensor logits({rows, cfg_.vocab_size});
  final_logits(logits.ptr(), x_.data(), rows, false);
  trim_workspace();
  return logits;
}

// Workspaces are kept between calls (a widget calls forward again and again with the same shape) unless one
// outgrew 64 MiB: a single huge batch should not hold its memory for the rest of the session.
void GPTModel::trim_workspace() {
  constexpr size_t kKeep = size_t{16} << 20;  // floats
  for (FloatBuffer* b : {&x_, &y_, &normed_, &acts_, &att_w_})
    if (b->capacity() > kKeep) FloatBuffer().swap(*b);
}

}  // namespace blockscope
