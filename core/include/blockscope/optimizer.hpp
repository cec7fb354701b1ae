// Optimisation pieces of training, each matching its PyTorch counterpart: AdamW (torch.optim.AdamW,
// decoupled weight decay, bias correction), clipping by global norm (torch.nn.utils.clip_grad_norm_), linear
// warmup + cosine decay, and the norms of gradients (global and per layer) the widgets plot.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "blockscope/param_arena.hpp"
#include "blockscope/safetensors.hpp"

namespace blockscope {

struct AdamWConfig {
  double lr = 3e-4;  // the base rate; step() takes the scheduled one
  double beta1 = 0.9;
  double beta2 = 0.95;
  double eps = 1e-8;
  double weight_decay = 0.1;
  // Decay only matrices that are not embeddings (Linear weights), as GPT-2 / nanoGPT / the book's training
  // recipes do; false decays every parameter (a single torch param group).
  bool exclude_from_decay = true;
  void validate() const;  // Error naming the value: lr > 0, 0 <= beta < 1, eps > 0, weight_decay >= 0
};

// Whether AdamW decays `p` under exclude_from_decay: 2-D and not an embedding table (tok_emb / pos_emb /
// wte / wpe): biases, LayerNorm scale/shift and embeddings are excluded.
bool decays(const ParamInfo& p);

class AdamW {
 public:
  // Moments laid out like `params` (zeros); `decay` picks the parameters with weight decay (default: decays()
  // under cfg.exclude_from_decay, every parameter otherwise).
  AdamW(const ParamArena& params, const AdamWConfig& cfg,
        std::function<bool(const ParamInfo&)> decay = nullptr);

  // One update of every parameter from `grads` at learning rate `lr`, in torch.optim.AdamW's order:
  // p *= 1 - lr wd; m = b1 m + (1-b1) g; v = b2 v + (1-b2) g^2; p -= lr/(1-b1^t) m / (sqrt(v)/sqrt(1-b2^t) + eps).
  void step(ParamArena& params, const ParamArena& grads, double lr);

  int64_t steps() const { return t_; }
  const AdamWConfig& config() const { return cfg_; }
  const ParamArena& m() const { return m_; }
  const ParamArena& v() const { return v_; }

  // Optimizer state as safetensors: "m.<param>" and "v.<param>" tensors, the step count in the metadata
  // ("format": "blockscope-adamw", "step"), with `extra` metadata next to them (a training checkpoint's
  // weights fingerprint; "format" and "step" cannot be overridden).
  std::vector<uint8_t> save_state(const std::map<std::string, std::string>& extra = {}) const;
  // Restores save_state()'s output; throws Error naming a missing or mis-shaped tensor.
  void load_state(std::span<const uint8_t> safetensors_bytes);

 private:
  AdamWConfig cfg_;
  ParamArena m_, v_;
  std::vector<bool> decay_;  // per parameter, in params() order
  int64_t t_ = 0;
};

// An update count as checkpoint metadata writes it: decimal digits of an integer in [0, 2^53) (beyond that it is
// not a real run, and the bias corrections need it exact in a double). Error "<what> is not an integer in
// [0, 2^53): 'x'".
int64_t parse_step_count(const std::string& text, const char* what);

// torch.nn.utils.clip_grad_norm_(params, max_norm): returns the global L2 norm of all gradients (before
// clipping) and, if it exceeds max_norm, scales every gradient by max_norm / (norm + 1e-6). max_norm <= 0
// only measures.
double clip_grad_norm(ParamArena& grads, double max_norm);

// L2 norm of each group of parameters, grouped by `group(name)`, in first-seen order: {group, norm}.
struct NamedNorm {
  std::string name;
  double norm = 0.0;
};
std::vector<NamedNorm> grouped_norms(const ParamArena& grads, const std::function<std::string(const std::string&)>& group);

// Learning rate for update `step` (0-based) of `steps`: linear warmup to `lr` over `warmup` updates, then
// cosine decay to `min_lr` at the last update: lr (s+1)/warmup, then min_lr + (lr - min_lr)(1 + cos(pi p))/2
// with p = (s - warmup) / max(1, steps - warmup).
double scheduled_lr(int64_t step, int64_t steps, int64_t warmup, double lr, double min_lr);

}  // namespace blockscope
