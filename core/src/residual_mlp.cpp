// ResidualMLP: lesson 82 §21's gradient-flow network — config, deterministic init, forward over a stack of
// Linear + activation layers (optionally pre-normed and with shortcuts) and the backward of y.sum().
#include "blockscope/residual_mlp.hpp"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "blockscope/checked.hpp"
#include "blockscope/error.hpp"
#include "blockscope/memory_budget.hpp"
#include "blockscope/rng.hpp"
#include "json_reader.hpp"

namespace blockscope {

namespace {
using json = nlohmann::json;

constexpr int64_t kMaxDepth = 256;
constexpr int64_t kMaxDim = 4096;

// Parameter count without validation (validate() bounds depth and dim first, so this cannot overflow).
int64_t count_params(const ResidualMLPConfig& c) {
  return c.depth * (Linear::num_params(c.dim, c.dim, true) + (c.layer_norm ? LayerNorm::num_params(c.dim) : 0));
}
}  // namespace

void ResidualMLPConfig::validate() const {
  require(depth >= 1 && depth <= kMaxDepth, "ResidualMLP depth must be in [1, ", kMaxDepth, "], got ", depth);
  require(dim >= 1 && dim <= kMaxDim, "ResidualMLP dim must be in [1, ", kMaxDim, "], got ", dim);
  require(std::isfinite(init_std) && init_std >= 0.0f, "ResidualMLP init_std must be a finite number >= 0, got ",
          init_std);
}

ResidualMLPConfig ResidualMLPConfig::from_json(const json& j) {
  const detail::Reader r(j, "residual MLP config",
                         {"depth", "dim", "activation", "residual", "layer_norm", "init_std"});
  ResidualMLPConfig c;
  c.depth = r.integer("depth", c.depth);
  c.dim = r.integer("dim", c.dim);
  c.activation = parse_activation(r.text("activation", activation_name(c.activation)).c_str());
  c.residual = r.flag("residual", c.residual);
  c.layer_norm = r.flag("layer_norm", c.layer_norm);
  c.init_std = static_cast<float>(r.number("init_std", c.init_std));  // null (the lesson's WithRes) = default init
  c.validate();
  return c;
}

int64_t ResidualMLP::num_params(const ResidualMLPConfig& cfg) {
  cfg.validate();
  return count_params(cfg);
}

namespace {
// The parameter count, once the config is valid and its weights and their gradients fit the budget.
int64_t budgeted_params(const ResidualMLPConfig& cfg, const MemoryBudget& budget) {
  const int64_t n = ResidualMLP::num_params(cfg);
  budget.require_fits({{detail::concat("a ResidualMLP of depth ", cfg.depth, " x dim ", cfg.dim, " (", n,
                                       " parameters, with their gradients)"),
                        float_bytes(2 * n, "the ResidualMLP's parameter bytes")}});
  return n;
}
}  // namespace

ResidualMLP::ResidualMLP(const ResidualMLPConfig& cfg, uint64_t seed, const MemoryBudget& budget)
    : cfg_(cfg), budget_(budget), params_(budgeted_params(cfg, budget)), grads_(0) {
  // Registration order is the state_dict order of ModuleList `layers`, then ModuleList `norms`.
  layers_.reserve(static_cast<size_t>(cfg.depth));
  for (int64_t i = 0; i < cfg.depth; ++i)
    layers_.emplace_back(params_, "layers." + std::to_string(i) + ".", cfg.dim, cfg.dim, true);
  if (cfg.layer_norm) {
    norms_.reserve(static_cast<size_t>(cfg.depth));
    for (int64_t i = 0; i < cfg.depth; ++i) norms_.emplace_back(params_, "norms." + std::to_string(i) + ".", cfg.dim);
  }
  grads_ = ParamArena::zeros_like(params_);
  // As the lesson: build every nn.Linear (default init), then nn.init.normal_(l.weight, std) over the layers.
  Rng rng(seed);
  for (Linear& l : layers_) l.init(rng);
  if (cfg.init_std > 0.0f)
    for (Linear& l : layers_)
      for (int64_t i = 0; i < cfg.dim * cfg.dim; ++i) l.weight()[i] = rng.normal() * cfg.init_std;
}

void ResidualMLP::resize_buffers(int64_t B) {
  const size_t n = to_size(B * cfg_.dim, "a ResidualMLP activation"), L = static_cast<size_t>(cfg_.depth);
  h_.resize((L + 1) * n);
  pre_.resize(L * n);
  dpre_.resize(n);
  if (cfg_.layer_norm) {
    ln_.resize(L * n);
    mean_.resize(L * static_cast<size_t>(B));
    rstd_.resize(L * static_cast<size_t>(B));
    dln_.resize(n);
  }
  if (dx_.shape != Shape{B, cfg_.dim}) dx_ = Tensor({B, cfg_.dim});
  B_ = B;
}

Tensor ResidualMLP::forward(const Tensor& x) {
  require(x.ndim() == 2 && x.shape[0] >= 1 && x.shape[1] == cfg_.dim &&
              x.numel() % cfg_.dim == 0 && x.numel() / cfg_.dim == x.shape[0],
          "ResidualMLP expects input of shape (B, ", cfg_.dim, ") with B >= 1, got ", shape_str(x.shape), " holding ",
          x.numel(), " values");
  require_finite(x.ptr(), x.numel(), "ResidualMLP input");
  // Memory per row: h (depth + 1) C, pre depth C, dpre, dx and the output C each, and with layer_norm ln
  // depth C + dln C + mean, rstd 2 depth; on top of the weights and their gradients. In wasm32 the budget
  // (2 GiB) also keeps every buffer size below 2^32 for its size_t.
  const int64_t L = cfg_.depth, C = cfg_.dim;
  const int64_t per_row = (2 * L + 4) * C + (cfg_.layer_norm ? (L + 1) * C + 2 * L : 0);
  const char* what = "the ResidualMLP's activation size";
  budget_.require_fits(
      {{detail::concat("ResidualMLP activations for B = ", x.shape[0], " rows"),
        float_bytes(checked_mul(x.shape[0], per_row, what), what)},
       {"the weights and their gradients", float_bytes(2 * params_.capacity(), what), true}});
  B_ = 0;  // no backward_sum() over stale buffers if an allocation below throws
  resize_buffers(x.shape[0]);
  std::copy(x.data.begin(), x.data.end(), h_.begin());
  for (int64_t l = 0; l < cfg_.depth; ++l) layer_forward(l);  // for l in self.layers: ...
  const float* y = h_.data() + cfg_.depth * B_ * cfg_.dim;
  return Tensor(x.shape, std::vector<float>(y, y + B_ * cfg_.dim));
}

// One iteration of the lesson's `for l in self.layers:` loop: h[l + 1] from h[l].
void ResidualMLP::layer_forward(int64_t l) {
  const int64_t n = B_ * cfg_.dim;
  const float* x = h_.data() + l * n;
  float* y = h_.data() + (l + 1) * n;
  float* pre = pre_.data() + l * n;
  float* ln = cfg_.layer_norm ? ln_.data() + l * n : nullptr;
  if (ln) norms_[l].forward(ln, mean_.data() + l * B_, rstd_.data() + l * B_, x, B_);  // u = norm(x)  (layer_norm)
  layers_[l].forward(pre, ln ? ln : x, B_);        // l(x), or l(u)
  activation_forward(cfg_.activation, y, pre, n);  // x = torch.tanh(l(x))      (NoRes; tanh or the chosen act)
  if (cfg_.residual)
    for (int64_t i = 0; i < n; ++i) y[i] += x[i];  // x = x + torch.tanh(l(x))  (WithRes)
}

void ResidualMLP::backward_sum() {
  require(B_ > 0, "ResidualMLP::backward_sum needs a forward pass first");
  grads_.zero();
  std::fill(dx_.data.begin(), dx_.data.end(), 1.0f);                // model(x).sum(): d loss / d y = 1
  for (int64_t l = cfg_.depth - 1; l >= 0; --l) layer_backward(l);  // .backward(); dx_ ends as d loss / d x
}

// On entry dx_ holds d loss / d h[l + 1]; on exit d loss / d h[l]. Kernels accumulate (+=), as autograd does.
void ResidualMLP::layer_backward(int64_t l) {
  const int64_t n = B_ * cfg_.dim;
  const GradMap grads(params_, grads_);
  const float* x = h_.data() + l * n;
  const float* in = cfg_.layer_norm ? ln_.data() + l * n : x;
  float* dx = dx_.ptr();
  std::fill(dpre_.begin(), dpre_.end(), 0.0f);
  activation_backward(cfg_.activation, dpre_.data(), pre_.data() + l * n, dx, n);  // through torch.tanh
  if (!cfg_.residual) std::fill(dx, dx + n, 0.0f);  // no shortcut: x reaches the loss only through l(x)
  if (cfg_.layer_norm) {
    std::fill(dln_.begin(), dln_.end(), 0.0f);
    layers_[l].backward(dln_.data(), dpre_.data(), in, B_, grads);                                 // through l
    norms_[l].backward(dx, dln_.data(), x, mean_.data() + l * B_, rstd_.data() + l * B_, B_, grads);  // norm
  } else {
    layers_[l].backward(dx, dpre_.data(), in, B_, grads);  // through l; += keeps the shortcut's term
  }
}

std::vector<float> ResidualMLP::weight_grad_norms() const {
  std::vector<float> norms;
  norms.reserve(layers_.size());
  for (const Linear& l : layers_) {
    const float* g = grads_.data() + (l.weight() - params_.data());
    double sum = 0.0;
    for (int64_t i = 0; i < cfg_.dim * cfg_.dim; ++i) sum += static_cast<double>(g[i]) * g[i];
    norms.push_back(static_cast<float>(std::sqrt(sum)));
  }
  return norms;
}

}  // namespace blockscope
