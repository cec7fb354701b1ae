// FeedForward: Linear -> activation -> Linear, position-wise.
#include "blockscope/feed_forward.hpp"

#include "blockscope/checked.hpp"
#include "blockscope/error.hpp"
#include "blockscope/memory_budget.hpp"

namespace blockscope {

void FeedForwardConfig::validate() const {
  using L = SizeLimits;
  require(emb_dim > 0, "FeedForward emb_dim must be positive, got ", emb_dim);
  require(emb_dim <= L::kMaxEmbDim, "FeedForward emb_dim ", emb_dim, " exceeds the limit of ", L::kMaxEmbDim);
  require(hidden_dim > 0, "FeedForward hidden_dim must be positive, got ", hidden_dim);
  require(hidden_dim <= L::kMaxFfnHidden, "FeedForward hidden_dim ", hidden_dim, " exceeds the limit of ",
          L::kMaxFfnHidden);
}

int64_t FeedForward::num_params(const FeedForwardConfig& cfg) {
  cfg.validate();
  return checked_add(Linear::num_params(cfg.emb_dim, cfg.hidden_dim, cfg.bias),
                     Linear::num_params(cfg.hidden_dim, cfg.emb_dim, cfg.bias), "FeedForward's parameter count");
}

int64_t FeedForward::flops_per_token(const FeedForwardConfig& cfg) {
  cfg.validate();
  return checked_product("FeedForward's flops per token", {4, cfg.emb_dim, cfg.hidden_dim});
}

int64_t FeedForward::hidden_entries(const FeedForwardConfig& cfg, int64_t B, int64_t n) {
  cfg.validate();
  require(B > 0 && n > 0, "batch size and sequence length must be positive, got B=", B, " n=", n);
  return checked_product("FeedForward's hidden entries", {B, n, cfg.hidden_dim});
}

namespace {
FeedForwardConfig make_config(int64_t emb_dim, int64_t expansion, bool bias, Activation activation) {
  require(emb_dim > 0, "FeedForward emb_dim must be positive, got ", emb_dim);
  require(expansion > 0, "FeedForward expansion must be positive, got ", expansion);
  return {emb_dim, checked_mul(emb_dim, expansion, "FeedForward's hidden width emb_dim x expansion"), activation, bias};
}
}  // namespace

FeedForward::FeedForward(int64_t emb_dim, int64_t expansion, bool bias, Activation activation, uint64_t seed)
    : FeedForward(make_config(emb_dim, expansion, bias, activation), seed) {}

FeedForward::FeedForward(const FeedForwardConfig& cfg, uint64_t seed)
    : cfg_(cfg), own_(std::make_unique<ParamArena>(num_params(cfg))) {
  fc_ = Linear(*own_, "layers.0.", cfg.emb_dim, cfg.hidden_dim, cfg.bias);
  proj_ = Linear(*own_, "layers.2.", cfg.hidden_dim, cfg.emb_dim, cfg.bias);
  Rng rng(seed);
  init(rng);
}

FeedForward::FeedForward(ParamArena& arena, const std::string& prefix, const FeedForwardConfig& cfg) : cfg_(cfg) {
  cfg.validate();
  fc_ = Linear(arena, prefix + "layers.0.", cfg.emb_dim, cfg.hidden_dim, cfg.bias);
  proj_ = Linear(arena, prefix + "layers.2.", cfg.hidden_dim, cfg.emb_dim, cfg.bias);
}

void FeedForward::init(Rng& rng) {
  fc_.init(rng);
  proj_.init(rng);
}

Tensor FeedForward::forward(const Tensor& x) {
  require(x.ndim() >= 1 && x.dim(-1) == cfg_.emb_dim, "FeedForward expects a last dimension of ", cfg_.emb_dim,
          ", got input of shape ", shape_str(x.shape));
  require_finite(x.ptr(), x.numel(), "FeedForward input");
  const int64_t N = x.rows();
  const char* what = "FeedForward's hidden values";
  MemoryBudget{}.require_fits({{detail::concat("FeedForward's hidden values for ", N, " rows of width ",
                                               cfg_.hidden_dim),
                                float_bytes(checked_product(what, {2, N, cfg_.hidden_dim}), what)}});
  Shape hidden_shape = x.shape;
  hidden_shape.back() = cfg_.hidden_dim;
  last_pre_ = Tensor(hidden_shape);
  last_post_ = Tensor(hidden_shape);
  Tensor y(x.shape);
  forward(y.ptr(), last_pre_.ptr(), last_post_.ptr(), x.ptr(), N);
  return y;
}

void FeedForward::forward(float* out, float* hidden_pre, float* hidden_post, const float* inp, int64_t N) const {
  fc_.forward(hidden_pre, inp, N);                                            // layers.0
  activation_forward(cfg_.activation, hidden_post, hidden_pre, N * cfg_.hidden_dim);  // layers.1 (GELU)
  proj_.forward(out, hidden_post, N);                                         // layers.2
}

void FeedForward::backward(float* dinp, const float* dout, const float* inp, const float* hidden_pre,
                           const float* hidden_post, int64_t N, const GradMap& grads) {
  const int64_t n = checked_mul(N, cfg_.hidden_dim, "FeedForward's gradient buffers");
  dpost_.assign(to_size(n, "FeedForward's gradient buffers"), 0.0f);
  dpre_.assign(to_size(n, "FeedForward's gradient buffers"), 0.0f);
  proj_.backward(dpost_.data(), dout, hidden_post, N, grads);                          // layers.2
  activation_backward(cfg_.activation, dpre_.data(), hidden_pre, dpost_.data(), n);   // layers.1
  fc_.backward(dinp, dpre_.data(), inp, N, grads);                                     // layers.0
}

}  // namespace blockscope
