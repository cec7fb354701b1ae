// Logit lens, head ablation and attribution (interpret.hpp).
#include "blockscope/interpret.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "blockscope/checked.hpp"
#include "blockscope/error.hpp"
#include "blockscope/memory_budget.hpp"
#include "json_reader.hpp"

namespace blockscope {

std::vector<HeadRef> parse_heads(std::string_view text, const GPTConfig& cfg) {
  std::vector<HeadRef> heads;
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = std::min(text.find(',', start), text.size());
    const std::string_view item = text.substr(start, end - start);
    const size_t dot = item.find('.');
    const auto number = [&](std::string_view digits, int64_t limit, const char* what) {
      require(!digits.empty() && digits.size() <= 9 &&
                  std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }),
              "head '", std::string(item), "' is not block.head (two whole numbers, 0-based, e.g. 1.0)");
      const int64_t v = std::stoll(std::string(digits));
      require(v < limit, "head '", std::string(item), "': ", what, " ", v, " is outside the model's [0, ", limit, ")");
      return v;
    };
    require(dot != std::string_view::npos, "head '", std::string(item), "' is not block.head (e.g. 1.0)");
    const int64_t block = number(item.substr(0, dot), cfg.n_layers, "block");
    const int64_t head = number(item.substr(dot + 1), cfg.n_heads, "head");
    if (std::find(heads.begin(), heads.end(), HeadRef{block, head}) == heads.end()) heads.push_back({block, head});
    start = end + 1;
  }
  return heads;
}

void set_head_ablation(GPTModel& model, std::span<const HeadRef> heads, HeadAblation mode) {
  const GPTConfig& cfg = model.config();
  for (const HeadRef& h : heads) {
    require(h.block >= 0 && h.block < cfg.n_layers && h.head >= 0 && h.head < cfg.n_heads, "head ", h.block, ".",
            h.head, " is outside the model (", cfg.n_layers, " blocks of ", cfg.n_heads, " heads)");
  }
  for (int64_t b = 0; b < cfg.n_layers; ++b) {
    std::vector<HeadAblation> modes(static_cast<size_t>(cfg.n_heads), HeadAblation::Keep);
    for (const HeadRef& h : heads)
      if (h.block == b) modes[static_cast<size_t>(h.head)] = mode;
    model.blocks()[static_cast<size_t>(b)].att().set_head_ablation(std::move(modes));
  }
}

std::vector<HeadRef> ablated_heads(const GPTModel& model) {
  std::vector<HeadRef> out;
  auto& blocks = const_cast<GPTModel&>(model).blocks();
  for (size_t b = 0; b < blocks.size(); ++b) {
    const auto& modes = blocks[b].att().head_ablation();
    for (size_t h = 0; h < modes.size(); ++h)
      if (modes[h] != HeadAblation::Keep) out.push_back({static_cast<int64_t>(b), static_cast<int64_t>(h)});
  }
  return out;
}

Tensor logit_lens(GPTModel& model, std::span<const int32_t> ids) {
  const GPTConfig& cfg = model.config();
  const auto T = static_cast<int64_t>(ids.size());
  require(T >= 1 && T <= cfg.context_length, "the logit lens needs 1 to context_length (", cfg.context_length,
          ") tokens, got ", T);
  const int64_t L1 = cfg.n_layers + 1;
  model.require_memory({{detail::concat("the logit lens (", L1, " layers x ", T, " tokens x ", cfg.vocab_size, " logits)"),
                         float_bytes(checked_product("the logit lens", {L1, T, cfg.vocab_size}), "the logit lens")}});
  const Tensor streams = model.residual_streams(ids);  // (L + 1, T, C), checked against the budget itself
  Tensor lens({L1, T, cfg.vocab_size});
  model.head_logits(lens.ptr(), streams.ptr(), L1 * T);
  return lens;
}

std::vector<float> token_probabilities(const Tensor& logits, int64_t target) {
  const int64_t V = logits.dim(logits.ndim() - 1), rows = logits.numel() / V;
  require(target >= 0 && target < V, "token id ", target, " is outside the vocabulary [0, ", V, ")");
  std::vector<float> out(static_cast<size_t>(rows));
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = logits.ptr() + r * V;
    const float top = *std::max_element(row, row + V);
    double z = 0.0;
    for (int64_t v = 0; v < V; ++v) z += std::exp(static_cast<double>(row[v]) - top);
    out[static_cast<size_t>(r)] = static_cast<float>(std::exp(static_cast<double>(row[target]) - top) / z);
  }
  return out;
}

const char* attribution_method_name(AttributionMethod m) {
  return m == AttributionMethod::GradTimesInput ? "grad-x-input" : "integrated-gradients";
}

AttributionMethod parse_attribution_method(std::string_view name) {
  if (name == "grad-x-input") return AttributionMethod::GradTimesInput;
  if (name == "integrated-gradients") return AttributionMethod::IntegratedGradients;
  throw Error(detail::concat("attribution method '", std::string(name), "' is not 'grad-x-input' or 'integrated-gradients'"));
}

AttributionOptions AttributionOptions::from_json(const nlohmann::json& j) {
  AttributionOptions o;
  if (j.is_null()) return o;
  const detail::Reader r(j, "attribution options", {"method", "objective", "steps"});
  o.method = parse_attribution_method(r.text("method", attribution_method_name(o.method)));
  const std::string objective = r.text("objective", "logit");
  require(objective == "logit" || objective == "logprob", "attribution objective '", objective,
          "' is not 'logit' or 'logprob'");
  o.objective = objective == "logit" ? AttributionObjective::Logit : AttributionObjective::LogProb;
  o.steps = r.integer("steps", o.steps);
  return o;
}

HeadAblation parse_head_ablation(std::string_view name) {
  if (name == "zero") return HeadAblation::Zero;
  if (name == "mean") return HeadAblation::Mean;
  throw Error(detail::concat("head ablation '", std::string(name), "' is not 'zero' or 'mean'"));
}

std::vector<float> attribute(GPTModel& model, std::span<const int32_t> ids, int64_t target,
                             const AttributionOptions& opts) {
  const GPTConfig& cfg = model.config();
  model.require_trainable("attribute a prediction to its inputs (it needs gradients)");
  const auto T = static_cast<int64_t>(ids.size());
  const int64_t C = cfg.emb_dim, V = cfg.vocab_size;
  require(T >= 1 && T <= cfg.context_length, "attribution needs 1 to context_length (", cfg.context_length,
          ") tokens, got ", T);
  require(target >= 0 && target < V, "target id ", target, " is outside the vocabulary [0, ", V, ")");
  const bool ig = opts.method == AttributionMethod::IntegratedGradients;
  require(!ig || (opts.steps >= 1 && opts.steps <= AttributionOptions::kMaxSteps),
          "integrated gradients need 1 to ", AttributionOptions::kMaxSteps, " steps, got ", opts.steps);
  model.require_memory({{detail::concat("attribution's forward and backward pass over ", T, " tokens"),
                         float_bytes(GPTRunState::size(cfg, 1, T, false), "attribution's run state")},
                        {"the parameter gradients it accumulates", model.stored_parameter_bytes()}});
  GPTRunState rs(cfg, 1, T, false);
  ParamArena grads = ParamArena::zeros_like(model.params());
  std::vector<float> emb(static_cast<size_t>(T * C)), d_emb(emb.size()), mean_grad(emb.size(), 0.0f);
  const int64_t points = ig ? opts.steps : 1;
  for (int64_t k = 1; k <= points; ++k) {
    const float alpha = ig ? static_cast<float>(k) / static_cast<float>(points) : 1.0f;
    model.forward_logits(rs, ids, nullptr, alpha);
    if (k == points) std::copy(rs.emb, rs.emb + T * C, emb.begin());  // alpha = 1: the input itself
    // d objective / d logits: only the last position's row is non-zero.
    float* row = rs.logits + (T - 1) * V;
    std::vector<float> dlogits(static_cast<size_t>(V), 0.0f);
    dlogits[static_cast<size_t>(target)] = 1.0f;
    if (opts.objective == AttributionObjective::LogProb) {  // d log softmax(z)_target / dz = onehot - softmax(z)
      const float top = *std::max_element(row, row + V);
      double z = 0.0;
      for (int64_t v = 0; v < V; ++v) z += std::exp(static_cast<double>(row[v]) - top);
      for (int64_t v = 0; v < V; ++v) dlogits[static_cast<size_t>(v)] -= static_cast<float>(std::exp(row[v] - top) / z);
    }
    std::fill(rs.logits, rs.logits + T * V, 0.0f);
    std::copy(dlogits.begin(), dlogits.end(), row);
    model.backward_logits(rs, grads, d_emb.data());
    for (size_t i = 0; i < d_emb.size(); ++i) mean_grad[i] += d_emb[i] / static_cast<float>(points);
  }
  for (const float v : emb) require(std::isfinite(v), "the embedding holds a non-finite value: nothing to attribute");
  std::vector<float> out(static_cast<size_t>(T), 0.0f);
  for (int64_t t = 0; t < T; ++t) {
    double sum = 0.0;
    for (int64_t c = 0; c < C; ++c) sum += static_cast<double>(emb[static_cast<size_t>(t * C + c)]) * mean_grad[static_cast<size_t>(t * C + c)];
    out[static_cast<size_t>(t)] = static_cast<float>(sum);
  }
  for (int64_t t = 0; t < T; ++t)
    require(std::isfinite(out[static_cast<size_t>(t)]), "the attribution of position ", t, " is not finite");
  return out;
}

}  // namespace blockscope
