// Linear: registration, PyTorch-like init, forward through linear_forward.
#include "blockscope/linear.hpp"

#include <cmath>

#include "blockscope/error.hpp"
#include "blockscope/ops.hpp"

namespace blockscope {

Linear::Linear(ParamArena& arena, const std::string& prefix, int64_t in_features, int64_t out_features, bool bias)
    : in_(in_features), out_(out_features) {
  require(in_features > 0 && out_features > 0, "Linear '", prefix, "' needs positive sizes, got in_features=",
          in_features, " out_features=", out_features);
  weight_ = arena.take(prefix + "weight", {out_features, in_features});
  if (!weight_) q8_ = arena.q8(prefix + "weight");
  if (bias) bias_ = arena.take(prefix + "bias", {out_features});
}

void Linear::init(Rng& rng) {
  require(weight_ != nullptr, "cannot initialize an int8 Linear weight (int8 weights come from a checkpoint)");
  // kaiming_uniform_(a=sqrt(5)) reduces to U(-1/sqrt(fan_in), 1/sqrt(fan_in)); the bias uses the same bound.
  const float bound = 1.0f / std::sqrt(static_cast<float>(in_));
  for (int64_t i = 0; i < in_ * out_; ++i) weight_[i] = rng.uniform(-bound, bound);
  if (bias_)
    for (int64_t i = 0; i < out_; ++i) bias_[i] = rng.uniform(-bound, bound);
}

void Linear::forward(float* out, const float* inp, int64_t N) const {
  if (q8_) return q8_->linear_forward(out, inp, bias_, N);
  linear_forward(out, inp, weight_, bias_, N, in_, out_);
}

void Linear::backward(float* dinp, const float* dout, const float* inp, int64_t N, const GradMap& grads) const {
  require(q8_ == nullptr, "int8 weights are inference-only: load the model with float32 weights to train it");
  linear_backward(dinp, grads(weight_), grads(bias_), dout, inp, weight_, N, in_, out_);
}

}  // namespace blockscope
