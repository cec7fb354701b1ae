// GPTModel: config handling, parameter layout, seeded init and the forward pass.
#include "blockscope/gpt_model.hpp"

#include <algorithm>
#include <cmath>

#include "blockscope/error.hpp"
#include "blockscope/ops.hpp"

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
  require(vocab_size > 0, "vocab_size must be positive, got ", vocab_size);
  require(context_length > 0, "context_length must be positive, got ", context_length);
  require(emb_dim > 0, "emb_dim must be positive, got ", emb_dim);
  require(n_heads > 0, "n_heads must be positive, got ", n_heads);
  require(n_layers > 0, "n_layers must be positive, got ", n_layers);
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
  return V * C                                                   // tok_emb
         + cfg.context_length * C                                // pos_emb
         + cfg.n_layers * TransformerBlock::num_params(cfg.block())  // trf_blocks
         + LayerNorm::num_params(C)                              // final_norm
         + (cfg.tie_weights ? 0 : V * C);                        // out_head (no bias)
}

namespace {
const GPTConfig& validated(const GPTConfig& cfg) {
  cfg.validate();
  return cfg;
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
GPTModel::GPTModel(const GPTConfig& cfg, uint64_t seed) : GPTModel(cfg, Uninitialized{}) { init(seed); }

GPTModel::GPTModel(const GPTConfig& cfg, Uninitialized)
    : cfg_(validated(cfg)),
      params_(count_parameters(cfg)),
      tok_emb_(params_.take("tok_emb.weight", {cfg.vocab_size, cfg.emb_dim})),
      pos_emb_(params_.take("pos_emb.weight", {cfg.context_length, cfg.emb_dim})),
      blocks_(make_blocks(params_, cfg)),
      final_norm_(params_, "final_norm.", cfg.emb_dim, cfg.layer_norm_epsilon) {
  // With weight tying (GPT-2) there is no out_head matrix: logits = final_norm(x) @ tok_emb^T.
  if (!cfg.tie_weights) out_head_ = Linear(params_, "out_head.", cfg.emb_dim, cfg.vocab_size, false);
  require(params_.used() == params_.capacity(), "internal: parameter layout mismatch (", params_.used(), " vs ",
          params_.capacity(), ")");
}

void GPTModel::init(uint64_t seed) {
  Rng rng(seed);
  const int64_t C = cfg_.emb_dim;
  for (int64_t i = 0; i < cfg_.vocab_size * C; ++i) tok_emb_[i] = rng.normal();       // nn.Embedding: N(0, 1)
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
  require(static_cast<int64_t>(ids.size()) == B * T, "expected ", B, " x ", T, " = ", B * T, " token ids, got ",
          ids.size());
  for (size_t i = 0; i < ids.size(); ++i)
    require(ids[i] >= 0 && ids[i] < cfg_.vocab_size, "token id ", ids[i], " at position ", i,
            " is outside the vocabulary [0, ", cfg_.vocab_size, ")");
}

KVCache::KVCache(const GPTConfig& cfg)
    : n_layers(cfg.n_layers), context_length(cfg.context_length), dim(cfg.emb_dim) {
  cfg.validate();
  k.assign(static_cast<size_t>(n_layers * context_length * dim), 0.0f);
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
      const float* te = tok_emb_ + static_cast<int64_t>(ids[static_cast<size_t>(b * T + t)]) * C;
      const float* pe = pos_emb_ + (pos0 + t) * C;
      float* o = x + (b * T + t) * C;
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
      r->mean.resize(static_cast<size_t>(N));
      r->var.resize(static_cast<size_t>(N));
    }
    row_mean_var(s.in.mean.data(), s.in.var.data(), x, N, C);
    row_mean_var(s.out.mean.data(), s.out.var.data(), normed_.data(), N, C);
  }
  linear_forward(logits, normed_.data(), cfg_.tie_weights ? tok_emb_ : out_head_.weight(), nullptr, N, C,
                 cfg_.vocab_size);
}

Tensor GPTModel::forward(std::span<const int32_t> ids, int64_t B, int64_t T, bool inspect) {
  check_ids(ids, B, T);
  const int64_t C = cfg_.emb_dim, N = B * T;
  x_.resize(static_cast<size_t>(N * C));
  normed_.resize(x_.size());
  inspection_ = ForwardInspection{};
  if (inspect) {
    inspection_ = ForwardInspection{B, T, C, cfg_.block().hidden_dim(), cfg_.n_heads, {}, {}};
    inspection_.layers.resize(blocks_.size());
  }
  const BlockConfig bc = cfg_.block();
  acts_.resize(static_cast<size_t>(BlockActs::size(bc, B, T, false)));
  const BlockActs a = BlockActs::carve(acts_.data(), bc, B, T, false);
  embed(x_.data(), ids, B, T, 0);
  for (size_t l = 0; l < blocks_.size(); ++l) {  // x = trf_blocks(x), one block's activations at a time
    blocks_[l].forward(a, x_.data(), B, T);
    if (inspect) blocks_[l].inspect(a, x_.data(), B, T, inspection_.layers[l]);
    std::copy(a.out, a.out + N * C, x_.data());
  }
  Tensor logits({B, T, cfg_.vocab_size});
  final_logits(logits.ptr(), x_.data(), N, inspect);
  return logits;
}

Tensor GPTModel::forward_cached(std::span<const int32_t> ids, KVCache& cache) {
  const auto T = static_cast<int64_t>(ids.size());
  require(cache.n_layers == cfg_.n_layers && cache.context_length == cfg_.context_length && cache.dim == cfg_.emb_dim,
          "KV cache was made for another model configuration");
  require(T > 0, "forward_cached needs at least one new token");
  require(cache.length + T <= cfg_.context_length, "cannot append ", T, " tokens to a KV cache holding ", cache.length,
          ": context_length is ", cfg_.context_length);
  check_ids(ids, 1, T);
  const int64_t C = cfg_.emb_dim;
  x_.resize(static_cast<size_t>(T * C));
  y_.resize(x_.size());
  normed_.resize(x_.size());
  inspection_ = ForwardInspection{};
  embed(x_.data(), ids, 1, T, cache.length);
  for (size_t l = 0; l < blocks_.size(); ++l) {
    blocks_[l].forward_cached(y_.data(), x_.data(), T, cache.slot(static_cast<int64_t>(l)));
    x_.swap(y_);
  }
  cache.length += T;
  Tensor logits({T, cfg_.vocab_size});
  final_logits(logits.ptr(), x_.data(), T, false);
  return logits;
}

}  // namespace blockscope
