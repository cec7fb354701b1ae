// Linear: y = x W^T + b with W stored (out, in) like torch.nn.Linear.weight. A non-owning view into a
// ParamArena; the building block of the feed-forward network and attention projections.
#pragma once

#include <cstdint>
#include <string>

#include "blockscope/checked.hpp"
#include "blockscope/param_arena.hpp"
#include "blockscope/rng.hpp"

namespace blockscope {

class Linear {
 public:
  Linear() = default;
  // Registers "<prefix>weight" (out, in) and, if `bias`, "<prefix>bias" (out). If the arena stores the weight
  // as int8, forward() runs the int8 kernels on it and backward() throws (int8 weights are inference-only).
  Linear(ParamArena& arena, const std::string& prefix, int64_t in_features, int64_t out_features, bool bias);
  // Checked: throws Error on int64 overflow.
  static int64_t num_params(int64_t in_features, int64_t out_features, bool bias) {
    const char* what = "Linear's parameter count";
    return checked_add(checked_mul(in_features, out_features, what), bias ? out_features : 0, what);
  }

  // torch.nn.Linear's default init: weight and bias ~ U(-1/sqrt(in), 1/sqrt(in)).
  void init(Rng& rng);
  // out (N, out_features); inp (N, in_features).
  void forward(float* out, const float* inp, int64_t N) const;
  // Backward of forward(out, inp, N): dinp (N, in_features) += dout @ W (skipped if null); the weight and
  // bias gradients accumulate at grads(weight()) and grads(bias()).
  void backward(float* dinp, const float* dout, const float* inp, int64_t N, const GradMap& grads) const;

  int64_t in_features() const { return in_; }
  int64_t out_features() const { return out_; }
  float* weight() const { return weight_; }  // null when the weight is int8
  const Q8Matrix* weight_q8() const { return q8_; }  // null when the weight is float32
  float* bias() const { return bias_; }  // null without bias

 private:
  float* weight_ = nullptr;
  float* bias_ = nullptr;
  const Q8Matrix* q8_ = nullptr;
  int64_t in_ = 0;
  int64_t out_ = 0;
};

}  // namespace blockscope
