// AdamW, gradient clipping, gradient norms and the learning-rate schedule. Float32 arithmetic follows
// torch.optim.AdamW's single-tensor path op by op, so parameters agree with PyTorch to a few ulps.
#include "blockscope/optimizer.hpp"

#include <cerrno>
#include <cmath>
#include <numbers>

#include "blockscope/error.hpp"
#include "blockscope/ops.hpp"

namespace blockscope {

void AdamWConfig::validate() const {
  require(std::isfinite(lr) && lr > 0.0, "learning rate must be a positive number, got ", lr);
  require(std::isfinite(beta1) && beta1 >= 0.0 && beta1 < 1.0, "beta1 must be in [0, 1), got ", beta1);
  require(std::isfinite(beta2) && beta2 >= 0.0 && beta2 < 1.0, "beta2 must be in [0, 1), got ", beta2);
  require(std::isfinite(eps) && eps > 0.0, "eps must be a positive number, got ", eps);
  require(std::isfinite(weight_decay) && weight_decay >= 0.0, "weight_decay must be >= 0, got ", weight_decay);
}

bool decays(const ParamInfo& p) {
  if (p.shape.size() != 2) return false;
  for (const char* emb : {"tok_emb.weight", "pos_emb.weight", "wte.weight", "wpe.weight"})
    if (p.name == emb) return false;
  return true;
}

AdamW::AdamW(const ParamArena& params, const AdamWConfig& cfg, std::function<bool(const ParamInfo&)> decay)
    : cfg_(cfg), m_(ParamArena::zeros_like(params)), v_(ParamArena::zeros_like(params)) {
  cfg.validate();
  for (const auto& p : params.params())
    decay_.push_back(decay ? decay(p) : (!cfg.exclude_from_decay || decays(p)));
}

void AdamW::step(ParamArena& params, const ParamArena& grads, double lr) {
  require(std::isfinite(lr) && lr >= 0.0, "learning rate must be a finite number >= 0, got ", lr);
  require(params.capacity() == m_.capacity() && grads.capacity() == m_.capacity(),
          "AdamW was made for ", m_.capacity(), " parameters; got ", params.capacity(), " and ", grads.capacity(),
          " gradients");
  ++t_;
  // beta^t as exp(t log beta) rather than std::pow: 1 - beta^t agrees to ~1e-16 (far below what reaches the float32
  // update), and the wasm build does without pow and its tables (1.1 KB gzip; exp and log it has anyway).
  const double bias_correction1 = 1.0 - std::exp(static_cast<double>(t_) * std::log(cfg_.beta1));
  const double bias_correction2 = 1.0 - std::exp(static_cast<double>(t_) * std::log(cfg_.beta2));
  AdamWCoefficients c{};
  c.b1 = static_cast<float>(cfg_.beta1);
  c.b2 = static_cast<float>(cfg_.beta2);
  c.one_minus_b1 = static_cast<float>(1.0 - cfg_.beta1);
  c.one_minus_b2 = static_cast<float>(1.0 - cfg_.beta2);
  c.neg_step_size = static_cast<float>(-(lr / bias_correction1));
  c.bc2_sqrt = static_cast<float>(std::sqrt(bias_correction2));
  c.eps = static_cast<float>(cfg_.eps);
  const auto& infos = params.params();
  for (size_t i = 0; i < infos.size(); ++i) {
    const ParamInfo& info = infos[i];
    c.keep = static_cast<float>(1.0 - lr * (decay_[i] ? cfg_.weight_decay : 0.0));
    const int64_t o = info.offset;
    adamw_update(params.data() + o, grads.data() + o, m_.data() + o, v_.data() + o, info.numel, c);  // ops.cpp
  }
}

std::vector<uint8_t> AdamW::save_state(const std::map<std::string, std::string>& extra) const {
  std::vector<SafetensorsTensorRef> refs;
  for (const auto& p : m_.params()) {
    refs.push_back({"m." + p.name, p.shape, m_.get(p.name)});
    refs.push_back({"v." + p.name, p.shape, v_.get(p.name)});
  }
  std::map<std::string, std::string> metadata = extra;
  metadata["format"] = "blockscope-adamw";
  metadata["step"] = std::to_string(t_);
  return write_safetensors(refs, metadata);
}

void AdamW::load_state(std::span<const uint8_t> bytes) {
  const SafetensorsFile f = SafetensorsFile::parse(bytes);
  const auto fmt = f.metadata().find("format");
  require(fmt != f.metadata().end() && fmt->second == "blockscope-adamw",
          "not a Blockscope optimizer state file (metadata 'format' is not 'blockscope-adamw')");
  const auto step = f.metadata().find("step");
  require(step != f.metadata().end(), "optimizer state has no 'step' in its metadata");
  const int64_t t = parse_step_count(step->second, "optimizer state 'step'");
  require(f.entries().size() == 2 * m_.params().size(), "optimizer state has ", f.entries().size(),
          " tensors; this model needs ", 2 * m_.params().size(), " (m and v of each parameter)");
  for (ParamArena* arena : {&m_, &v_}) {
    const std::string prefix = arena == &m_ ? "m." : "v.";
    for (const auto& p : arena->params()) {
      const SafetensorsEntry& e = f.at(prefix + p.name);
      require(e.shape == p.shape, "optimizer state tensor '", e.name, "' has shape ", shape_str(e.shape),
              ", the parameter ", shape_str(p.shape));
      f.read_float32(e, std::span<float>(arena->data() + p.offset, static_cast<size_t>(p.numel)));
      require_finite(arena->data() + p.offset, p.numel, e.name.c_str());
    }
  }
  t_ = t;
}

int64_t parse_step_count(const std::string& text, const char* what) {
  const std::string shown = text.size() > 40 ? text.substr(0, 37) + "..." : text;
  const bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
  errno = 0;
  const long long t = digits ? std::strtoll(text.c_str(), nullptr, 10) : -1;
  require(digits && errno != ERANGE && t < (1LL << 53), what, " is not an integer in [0, 2^53): '", shown, "'");
  return t;
}

double clip_grad_norm(ParamArena& grads, double max_norm) {
  const double total = std::sqrt(sum_squares(grads.data(), grads.capacity()));
  if (max_norm > 0.0) {
    const double coef = max_norm / (total + 1e-6);
    if (coef < 1.0) {
      const auto c = static_cast<float>(coef);
      for (int64_t i = 0; i < grads.capacity(); ++i) grads.data()[i] *= c;
    }
  }
  return total;
}

std::vector<NamedNorm> grouped_norms(const ParamArena& grads,
                                     const std::function<std::string(const std::string&)>& group) {
  std::vector<NamedNorm> out;
  for (const auto& p : grads.params()) {
    const std::string g = group(p.name);
    if (out.empty() || out.back().name != g) out.push_back({g, 0.0});
    out.back().norm = sum_squares(grads.data() + p.offset, p.numel, out.back().norm);  // one sum per group, in order
  }
  for (auto& n : out) n.norm = std::sqrt(n.norm);
  return out;
}

double scheduled_lr(int64_t step, int64_t steps, int64_t warmup, double lr, double min_lr) {
  if (step < warmup) return lr * static_cast<double>(step + 1) / static_cast<double>(warmup);
  const double p = static_cast<double>(step - warmup) / static_cast<double>(std::max<int64_t>(1, steps - warmup));
  return min_lr + 0.5 * (lr - min_lr) * (1.0 + std::cos(std::numbers::pi * std::min(p, 1.0)));
}

}  // namespace blockscope
