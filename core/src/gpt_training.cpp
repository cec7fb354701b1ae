// GPTModel's training passes: the forward pass that keeps every activation (GPTRunState), the mean
// cross-entropy loss, and the backward pass into a gradient arena laid out like the parameters.
#include <algorithm>

#include "blockscope/checked.hpp"
#include "blockscope/error.hpp"
#include "blockscope/gpt_model.hpp"
#include "blockscope/ops.hpp"

namespace blockscope {

namespace {
void scale_inplace(float* x, float s, int64_t n) {
  for (int64_t i = 0; i < n; ++i) x[i] *= s;
}

// Walks the run state's layout; with mem == null it only counts.
int64_t run_state_layout(GPTRunState* rs, float* mem, const GPTConfig& cfg, int64_t B, int64_t T, bool dropout) {
  const BlockConfig bc = cfg.block();
  const char* what = "the training run state's size";
  const int64_t N = checked_mul(B, T, what), C = cfg.emb_dim, V = cfg.vocab_size;
  const int64_t NC = checked_mul(N, C, what), NV = checked_mul(N, V, what);
  int64_t used = 0;
  float* unused = nullptr;
  const auto take = [&](float*& p, int64_t n) {
    if (mem) p = mem + used;
    used = checked_add(used, n, what);
  };
  take(rs ? rs->emb : unused, NC);
  if (dropout) take(rs ? rs->emb_mask : unused, NC);
  const int64_t block = BlockActs::size(bc, B, T, dropout);
  checked_mul(block, cfg.n_layers, what);
  for (int64_t l = 0; l < cfg.n_layers; ++l) {
    if (rs) rs->layers[static_cast<size_t>(l)] = BlockActs::carve(mem + used, bc, B, T, dropout);
    used += block;
  }
  take(rs ? rs->lnf_mean : unused, N);
  take(rs ? rs->lnf_rstd : unused, N);
  take(rs ? rs->lnf_out : unused, NC);
  take(rs ? rs->logits : unused, NV);
  take(rs ? rs->losses : unused, N);
  return used;
}
}  // namespace

int64_t GPTRunState::size(const GPTConfig& cfg, int64_t B, int64_t T, bool dropout) {
  cfg.validate();
  require(B > 0 && T > 0 && T <= cfg.context_length, "a training batch needs B > 0 and 0 < T <= context_length (",
          cfg.context_length, "), got B=", B, " T=", T);
  return run_state_layout(nullptr, nullptr, cfg, B, T, dropout);
}

GPTRunState::GPTRunState(const GPTConfig& cfg, int64_t B_, int64_t T_, bool dropout_)
    : B(B_), T(T_), dropout(dropout_) {
  mem_.assign(to_size(size(cfg, B, T, dropout), "the training run state"), 0.0f);
  layers.resize(static_cast<size_t>(cfg.n_layers));
  run_state_layout(this, mem_.data(), cfg, B, T, dropout);
}

void GPTModel::check_targets(std::span<const int32_t> targets, int64_t n) const {
  require(static_cast<int64_t>(targets.size()) == n, "expected ", n, " targets (one per token), got ",
          targets.size());
  for (size_t i = 0; i < targets.size(); ++i)
    require(targets[i] >= 0 && targets[i] < cfg_.vocab_size, "target id ", targets[i], " at position ", i,
            " is outside the vocabulary [0, ", cfg_.vocab_size, ")");
}

double GPTModel::forward_loss(GPTRunState& rs, std::span<const int32_t> ids, std::span<const int32_t> targets,
                              Rng* dropout_rng) {
  check_targets(targets, rs.B * rs.T);
  forward_logits(rs, ids, dropout_rng);
  rs.targets.assign(targets.begin(), targets.end());
  return cross_entropy_forward(rs.losses, rs.logits, rs.targets.data(), rs.B * rs.T, cfg_.vocab_size);  // F.cross_entropy
}

void GPTModel::forward_logits(GPTRunState& rs, std::span<const int32_t> ids, Rng* dropout_rng, float emb_scale) {
  require_trainable("run a training forward pass");
  const int64_t B = rs.B, T = rs.T, N = B * T, C = cfg_.emb_dim, V = cfg_.vocab_size;
  require(rs.layers.size() == blocks_.size(), "run state was made for ", rs.layers.size(), " layers, the model has ",
          blocks_.size());
  check_ids(ids, B, T);
  rs.ids.assign(ids.begin(), ids.end());
  rs.targets.clear();
  rs.emb_scale = emb_scale;
  const BlockConfig bc = cfg_.block();
  const auto p = static_cast<float>(cfg_.drop_rate);
  if (rs.dropout && dropout_rng) {
    const float keep_scale = 1.0f / static_cast<float>(1.0 - cfg_.drop_rate);
    for (int64_t i = 0; i < N * C; ++i) rs.emb_mask[i] = dropout_rng->uniform() < p ? 0.0f : keep_scale;
    for (const auto& a : rs.layers) a.draw_dropout(*dropout_rng, p, B, T, bc);
  }
  embed(rs.emb, ids, B, T, 0);                                               // tok_emb(ids) + pos_emb
  if (emb_scale != 1.0f) scale_inplace(rs.emb, emb_scale, N * C);          // (integrated gradients' path)
  if (rs.emb_mask) dropout_apply(rs.emb, rs.emb, rs.emb_mask, N * C);        // x = self.drop_emb(x)
  const float* x = rs.emb;
  for (size_t l = 0; l < blocks_.size(); ++l) {                             // x = self.trf_blocks(x)
    blocks_[l].forward(rs.layers[l], x, B, T);
    x = rs.layers[l].out;
  }
  final_norm_.forward(rs.lnf_out, rs.lnf_mean, rs.lnf_rstd, x, N);          // x = self.final_norm(x)
  linear_forward(rs.logits, rs.lnf_out, cfg_.tie_weights ? tok_emb_ : out_head_.weight(), nullptr, N, C, V);
}

void GPTModel::backward(GPTRunState& rs, ParamArena& grads, float loss_scale) {
  require_trainable("compute gradients");
  require(static_cast<int64_t>(rs.targets.size()) == rs.B * rs.T, "backward needs a forward_loss on this run state first");
  cross_entropy_backward(rs.logits, rs.targets.data(), rs.B * rs.T, cfg_.vocab_size, loss_scale);  // d logits, in place
  backward_logits(rs, grads, nullptr);
}

void GPTModel::backward_logits(GPTRunState& rs, ParamArena& grads, float* d_emb) {
  require_trainable("compute gradients");
  const int64_t B = rs.B, T = rs.T, N = B * T, C = cfg_.emb_dim, V = cfg_.vocab_size;
  require(static_cast<int64_t>(rs.ids.size()) == N, "backward needs a forward pass on this run state first");
  const GradMap g(params_, grads);
  const float* head = cfg_.tie_weights ? tok_emb_ : out_head_.weight();
  dx_.assign(to_size(N * C, "the residual stream's gradient"), 0.0f);
  dy_.assign(dx_.size(), 0.0f);
  linear_backward(dy_.data(), g(head), nullptr, rs.logits, rs.lnf_out, head, N, C, V);  // out_head
  const float* last = rs.layers.back().out;
  final_norm_.backward(dx_.data(), dy_.data(), last, rs.lnf_mean, rs.lnf_rstd, N, g);  // final_norm
  for (size_t l = blocks_.size(); l-- > 0;) {                              // trf_blocks, last first
    std::fill(dy_.begin(), dy_.end(), 0.0f);
    const float* inp = l == 0 ? rs.emb : rs.layers[l - 1].out;
    blocks_[l].backward(dy_.data(), dx_.data(), inp, rs.layers[l], B, T, g);
    dx_.swap(dy_);
  }
  if (rs.emb_mask) {                                                       // drop_emb
    std::fill(dy_.begin(), dy_.end(), 0.0f);
    dropout_backward(dy_.data(), dx_.data(), rs.emb_mask, N * C);
    dx_.swap(dy_);
  }
  if (d_emb) {  // the gradient with respect to the (scaled) embedding itself
    std::copy(dx_.begin(), dx_.end(), d_emb);
    return;
  }
  if (rs.emb_scale != 1.0f) scale_inplace(dx_.data(), rs.emb_scale, N * C);
  embedding_backward(g(tok_emb_), g(pos_emb_), dx_.data(), rs.ids.data(), B, T, C);  // tok_emb, pos_emb
}

double GPTModel::loss(std::span<const int32_t> ids, std::span<const int32_t> targets, int64_t B, int64_t T) {
  check_targets(targets, checked_mul(B, T, "the number of targets B x T"));
  Tensor logits = forward(ids, B, T);
  std::vector<float> losses(to_size(B * T, "per-token losses"));
  return cross_entropy_forward(losses.data(), logits.ptr(), targets.data(), B * T, cfg_.vocab_size);
}

}  // namespace blockscope
