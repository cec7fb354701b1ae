// ResidualMLP: the residual-gradient-flow network of lesson 82 §21, a stack of `depth` Linear(d, d) layers
// with an activation, with or without the shortcut x = x + act(l(x)), and its gradient for loss = y.sum().
// A teaching model for the widget that plots per-layer weight-gradient norms; not part of the GPT.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <vector>

#include "blockscope/layer_norm.hpp"
#include "blockscope/linear.hpp"
#include "blockscope/memory_budget.hpp"
#include "blockscope/ops.hpp"
#include "blockscope/param_arena.hpp"
#include "blockscope/tensor.hpp"

namespace blockscope {

struct ResidualMLPConfig {
  int64_t depth = 8, dim = 16;
  Activation activation = Activation::Tanh;
  bool residual = true;
  bool layer_norm = false;  // pre-norm inside each layer: x = x + act(l(LN(x))) (or act(l(LN(x))) without residual)
  float init_std = 0.0f;    // > 0: weights ~ N(0, init_std) (biases keep the default init); 0: PyTorch's default
                            // Linear init U(+-1/sqrt(dim))
  // Throws Error naming the value: depth in [1, 256], dim in [1, 4096], init_std finite and >= 0.
  void validate() const;
  // Keys "depth", "dim", "activation" ("tanh", "gelu_tanh", "gelu_erf", "relu"), "residual", "layer_norm",
  // "init_std" (null means 0); all optional with the defaults above, strict (unknown keys rejected by name),
  // validated.
  static ResidualMLPConfig from_json(const nlohmann::json& j);
};

class ResidualMLP {
 public:
  // Parameters "layers.{i}.weight" (dim, dim), "layers.{i}.bias" (dim) and, with layer_norm,
  // "norms.{i}.scale" / "norms.{i}.shift" (dim) — the names of the lesson's nn.ModuleList — initialised
  // deterministically from `seed` with Rng (see init_std; PyTorch's stream cannot be reproduced, so the
  // golden tests load PyTorch's weights). Throws Error from cfg.validate(), or before allocating if the weights
  // and their gradients exceed `budget`, which then bounds every forward's activations.
  ResidualMLP(const ResidualMLPConfig& cfg, uint64_t seed, const MemoryBudget& budget = {});
  static int64_t num_params(const ResidualMLPConfig& cfg);  // depth (d^2 + d), plus depth 2d with layer_norm

  // x (B, dim) -> y (B, dim). Keeps every layer's activations for backward_sum(). Throws Error naming the
  // shape if x is not (B >= 1, dim), or naming the index of a NaN/inf.
  Tensor forward(const Tensor& x);
  // Gradients of loss = y.sum() of the last forward (dout = ones, as y.sum().backward()) into grads(), zeroed
  // first, and d loss / d x into input_grad(). Throws Error if no forward came before.
  void backward_sum();
  // ||d loss / d layers.{i}.weight||_2 for i = 0 .. depth-1 (layer 1 first), accumulated in double:
  // [l.weight.grad.norm() for l in model.layers].
  std::vector<float> weight_grad_norms() const;

  ParamArena& params() { return params_; }
  const ParamArena& params() const { return params_; }
  const ParamArena& grads() const { return grads_; }
  const Tensor& input_grad() const { return dx_; }  // (B, dim), after backward_sum()
  const ResidualMLPConfig& config() const { return cfg_; }

 private:
  void layer_forward(int64_t l);
  void layer_backward(int64_t l);
  void resize_buffers(int64_t B);

  ResidualMLPConfig cfg_;
  MemoryBudget budget_;
  ParamArena params_, grads_;
  std::vector<Linear> layers_;    // layers.{i}
  std::vector<LayerNorm> norms_;  // norms.{i}, empty without layer_norm
  // Activations of the last forward, B rows of C = dim; layer l reads h[l] and writes h[l + 1].
  int64_t B_ = 0;
  FloatBuffer h_;     // (depth + 1, B, C) each layer's input; h[depth] is the output
  FloatBuffer ln_;    // (depth, B, C) LN(h[l]), with layer_norm
  FloatBuffer mean_;  // (depth, B) LayerNorm caches, with layer_norm
  FloatBuffer rstd_;  // (depth, B)
  FloatBuffer pre_;   // (depth, B, C) l(.) before the activation
  // Backward scratch (B, C): d pre-activation, d LayerNorm output; dx_ carries d loss / d h[l] down the stack.
  FloatBuffer dpre_, dln_;
  Tensor dx_;
};

}  // namespace blockscope
