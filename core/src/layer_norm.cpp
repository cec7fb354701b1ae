// LayerNorm over the last axis with learnable scale and shift.
#include "blockscope/layer_norm.hpp"

#include <cmath>

#include "blockscope/error.hpp"
#include "blockscope/ops.hpp"

namespace blockscope {

namespace {
void check_args(int64_t emb_dim, float eps) {
  require(emb_dim > 0, "LayerNorm emb_dim must be positive, got ", emb_dim);
  require(std::isfinite(eps) && eps > 0.0f, "LayerNorm eps must be a positive finite number, got ", eps);
}
}  // namespace

LayerNormTrace layer_norm_trace(std::span<const float> x, std::span<const float> gamma, std::span<const float> beta,
                                float eps) {
  const auto d = static_cast<int64_t>(gamma.size());
  require(d > 0, "LayerNorm needs at least one feature (gamma is empty)");
  require(beta.size() == gamma.size(), "gamma has ", gamma.size(), " values but beta has ", beta.size());
  require(!x.empty() && x.size() % gamma.size() == 0, "LayerNorm input of length ", x.size(),
          " is not a whole number of rows of length ", d);
  require(std::isfinite(eps) && eps > 0.0f, "LayerNorm eps must be a positive finite number, got ", eps);
  require_finite(x.data(), static_cast<int64_t>(x.size()), "LayerNorm input");
  require_finite(gamma.data(), d, "LayerNorm gamma");
  require_finite(beta.data(), d, "LayerNorm beta");
  LayerNormTrace t;
  t.rows = static_cast<int64_t>(x.size()) / d;
  t.dim = d;
  const size_t n = to_size(t.rows, "LayerNorm statistics");
  t.mean.resize(n);
  t.var.resize(n);
  t.rstd.resize(n);
  t.normalized.resize(x.size());
  t.output.resize(x.size());
  row_mean_var(t.mean.data(), t.var.data(), x.data(), t.rows, d);
  const std::vector<float> ones(gamma.size(), 1.0f), zeros(gamma.size(), 0.0f);
  layernorm_forward(t.normalized.data(), nullptr, t.rstd.data(), x.data(), ones.data(), zeros.data(), t.rows, d, eps);
  layernorm_forward(t.output.data(), nullptr, nullptr, x.data(), gamma.data(), beta.data(), t.rows, d, eps);
  return t;
}

LayerNorm::LayerNorm(int64_t emb_dim, float eps) : emb_dim_(emb_dim), eps_(eps) {
  check_args(emb_dim, eps);
  own_ = std::make_unique<ParamArena>(num_params(emb_dim));
  scale_ = own_->take("scale", {emb_dim});
  shift_ = own_->take("shift", {emb_dim});
  reset_parameters();
}

LayerNorm::LayerNorm(ParamArena& arena, const std::string& prefix, int64_t emb_dim, float eps)
    : emb_dim_(emb_dim), eps_(eps) {
  check_args(emb_dim, eps);
  scale_ = arena.take(prefix + "scale", {emb_dim});
  shift_ = arena.take(prefix + "shift", {emb_dim});
  reset_parameters();
}

void LayerNorm::reset_parameters() {
  for (int64_t c = 0; c < emb_dim_; ++c) {
    scale_[c] = 1.0f;
    shift_[c] = 0.0f;
  }
}

Tensor LayerNorm::forward(const Tensor& x) {
  require(x.ndim() >= 1 && x.dim(-1) == emb_dim_, "LayerNorm(", emb_dim_, ") expects a last dimension of ",
          emb_dim_, ", got input of shape ", shape_str(x.shape));
  require_finite(x.ptr(), x.numel(), "LayerNorm input");
  Tensor y(x.shape);
  const int64_t rows = x.rows();
  last_mean_.resize(to_size(rows, "LayerNorm statistics"));
  last_rstd_.resize(to_size(rows, "LayerNorm statistics"));
  forward(y.ptr(), last_mean_.data(), last_rstd_.data(), x.ptr(), rows);
  return y;
}

void LayerNorm::forward(float* out, float* mean, float* rstd, const float* inp, int64_t rows) const {
  layernorm_forward(out, mean, rstd, inp, scale_, shift_, rows, emb_dim_, eps_);
}

void LayerNorm::backward(float* dinp, const float* dout, const float* inp, const float* mean, const float* rstd,
                         int64_t rows, const GradMap& grads) const {
  layernorm_backward(dinp, grads(scale_), grads(shift_), dout, inp, scale_, mean, rstd, rows, emb_dim_);
}

}  // namespace blockscope
