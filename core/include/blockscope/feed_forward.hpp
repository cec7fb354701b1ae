// FeedForward (book ch. 4.3): the position-wise MLP of a transformer block, Linear(d, H) -> GELU ->
// Linear(H, d) with H = expansion * d (4 in GPT-2). Parameter names follow the book's nn.Sequential:
// "layers.0.weight|bias" and "layers.2.weight|bias".
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <memory>
#include <string>
#include <vector>

#include "blockscope/linear.hpp"
#include "blockscope/ops.hpp"
#include "blockscope/param_arena.hpp"
#include "blockscope/tensor.hpp"

namespace blockscope {

struct FeedForwardConfig {
  int64_t emb_dim = 0;
  int64_t hidden_dim = 0;  // H; the book uses 4 * emb_dim
  Activation activation = Activation::GeluTanh;
  bool bias = true;
  void validate() const;  // throws Error naming a non-positive size
  // Keys "emb_dim", "hidden_dim", optional "activation", "bias"; strict, validated (config_json.cpp).
  static FeedForwardConfig from_json(const nlohmann::json& j);
};

class FeedForward {
 public:
  // Standalone FFN owning its parameters, H = expansion * emb_dim, seeded init.
  FeedForward(int64_t emb_dim, int64_t expansion = 4, bool bias = true,
              Activation activation = Activation::GeluTanh, uint64_t seed = 123);
  explicit FeedForward(const FeedForwardConfig& cfg, uint64_t seed = 123);
  FeedForward(ParamArena& arena, const std::string& prefix, const FeedForwardConfig& cfg);
  static int64_t num_params(const FeedForwardConfig& cfg);  // 2 d H + H + d with bias: 8d^2 + 5d at H = 4d
  // Multiply-add FLOPs per token of the two matrix products: 2 (d H + H d) = 16 d^2 at H = 4d.
  static int64_t flops_per_token(const FeedForwardConfig& cfg);
  // Hidden activations held for a batch (B, n): B n H entries (25.2M for B 8, n 1024, d 768).
  static int64_t hidden_entries(const FeedForwardConfig& cfg, int64_t B, int64_t n);

  void init(Rng& rng);
  // x (..., emb_dim) -> same shape; keeps the hidden values (last_hidden_pre / _post).
  Tensor forward(const Tensor& x);
  // Raw form: out (N, d); hidden_pre, hidden_post (N, H) (hidden_post may equal hidden_pre when the
  // pre-activation values are not needed); inp (N, d).
  void forward(float* out, float* hidden_pre, float* hidden_post, const float* inp, int64_t N) const;
  // Backward of the raw forward, given its hidden values: dinp (N, d) accumulates (null: skipped); the
  // weight gradients accumulate through `grads`. Uses a hidden-size scratch buffer kept by the object.
  void backward(float* dinp, const float* dout, const float* inp, const float* hidden_pre,
                const float* hidden_post, int64_t N, const GradMap& grads);

  const FeedForwardConfig& config() const { return cfg_; }
  const Linear& fc() const { return fc_; }      // layers.0
  const Linear& proj() const { return proj_; }  // layers.2
  ParamArena* own_params() { return own_.get(); }
  const Tensor& last_hidden_pre() const { return last_pre_; }
  const Tensor& last_hidden_post() const { return last_post_; }

 private:
  FeedForwardConfig cfg_;
  std::unique_ptr<ParamArena> own_;
  Linear fc_, proj_;
  Tensor last_pre_, last_post_;
  FloatBuffer dpost_, dpre_;  // backward scratch (N, H): d hidden_post, d hidden_pre
};

}  // namespace blockscope
