// blockscope lens and blockscope attribute: the core's logit lens and input attribution (interpret.hpp) on one
// prompt, optionally with heads ablated (--ablate 1.0,3.2, as `forward` takes it).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "blockscope/error.hpp"
#include "blockscope/interpret.hpp"
#include "commands.hpp"
#include "common.hpp"

namespace blockscope::cli {

namespace {
using nlohmann::json;

struct InterpretArgs {
  std::string model, tokens, weights = "f32", ablate, ablate_mode = "zero", method = "grad-x-input";
  std::string objective = "logit";
  int64_t target = -1, steps = 32;
  bool json = false;
};

GPTModel open_model(const InterpretArgs& a) {
  LoadOptions opts;
  opts.weights = parse_weight_format(a.weights);
  GPTModel model = load_model_dir(a.model, opts);
  set_head_ablation(model, parse_heads(a.ablate, model.config()), parse_head_ablation(a.ablate_mode));
  return model;
}

int cmd_lens(const InterpretArgs& a) {
  GPTModel model = open_model(a);
  const std::vector<int32_t> ids = parse_ids(a.tokens);
  const Tensor lens = logit_lens(model, ids);
  const int64_t L1 = lens.dim(0), T = lens.dim(1), V = lens.dim(2);
  for (int64_t i = 0; i < lens.numel(); ++i) {
    require(std::isfinite(lens.ptr()[i]), "the lens logit of token ", i % V, " at layer ", i / (T * V), ", position ",
            (i / V) % T, " is ", std::isnan(lens.ptr()[i]) ? "NaN" : "infinite", ": the model's weights overflow");
  }
  if (a.json) {
    json layers = json::array();
    for (int64_t l = 0; l < L1; ++l) {
      json rows = json::array();
      for (int64_t t = 0; t < T; ++t) {
        const float* row = lens.ptr() + (l * T + t) * V;
        rows.push_back(std::vector<float>(row, row + V));
      }
      layers.push_back(std::move(rows));
    }
    std::printf("%s\n", json{{"lens", layers}}.dump().c_str());
    return 0;
  }
  // Text: the top 5 tokens of the last position at each layer.
  std::printf("logit lens at the last position (token %d), top 5 tokens per layer (id: logit)\n", ids.back());
  for (int64_t l = 0; l < L1; ++l) {
    const float* row = lens.ptr() + (l * T + T - 1) * V;
    std::vector<int32_t> order(static_cast<size_t>(V));
    for (int32_t v = 0; v < V; ++v) order[static_cast<size_t>(v)] = v;
    const auto k = static_cast<std::ptrdiff_t>(std::min<int64_t>(5, V));
    std::partial_sort(order.begin(), order.begin() + k, order.end(), [&](int32_t x, int32_t y) {
      return row[x] > row[y] || (row[x] == row[y] && x < y);
    });
    std::printf("%s", l == 0 ? "embeddings" : ("block " + std::to_string(l - 1)).c_str());
    for (std::ptrdiff_t i = 0; i < k; ++i) std::printf("  %d: %.4f", order[static_cast<size_t>(i)], row[order[static_cast<size_t>(i)]]);
    std::printf("\n");
  }
  return 0;
}

int cmd_attribute(const InterpretArgs& a) {
  GPTModel model = open_model(a);
  const std::vector<int32_t> ids = parse_ids(a.tokens);
  AttributionOptions opts;
  opts.method = parse_attribution_method(a.method);
  require(a.objective == "logit" || a.objective == "logprob", "--objective '", a.objective, "' is not logit or logprob");
  opts.objective = a.objective == "logit" ? AttributionObjective::Logit : AttributionObjective::LogProb;
  opts.steps = a.steps;
  const std::vector<float> values = attribute(model, ids, a.target, opts);
  if (a.json) {
    std::printf("%s\n", json{{"attribution", values}}.dump().c_str());
    return 0;
  }
  std::printf("%s of the %s of token %lld at the last position\n", attribution_method_name(opts.method),
              a.objective.c_str(), static_cast<long long>(a.target));
  for (size_t t = 0; t < ids.size(); ++t) std::printf("position %zu: token %d  %+.6f\n", t, ids[t], values[t]);
  return 0;
}

void common_options(CLI::App* cmd, InterpretArgs& a) {
  cmd->add_option("--model", a.model, "model directory")->required();
  cmd->add_option("--tokens", a.tokens, "comma-separated token ids, e.g. 15496,11,995")->required();
  cmd->add_option("--ablate", a.ablate, kAblateHelp);
  cmd->add_option("--ablate-mode", a.ablate_mode, kAblateModeHelp);
  cmd->add_flag("--json", a.json, "print JSON");
}
}  // namespace

void add_interpret_commands(CLI::App& app, Action& action) {
  auto a = std::make_shared<InterpretArgs>();
  auto* lens = app.add_subcommand("lens", "logit lens: each layer's residual stream through the final norm and head");
  common_options(lens, *a);
  lens->add_option("--weights", a->weights, "f32 (default) or int8");
  lens->footer("--json prints {\"lens\": [layer][position][vocab]} (logits; layer 0 = the embeddings)");
  lens->callback([a, &action] { action = [a] { return cmd_lens(*a); }; });

  auto b = std::make_shared<InterpretArgs>();
  auto* attr = app.add_subcommand("attribute", "how much each input position drives a next-token logit");
  common_options(attr, *b);
  attr->add_option("--target", b->target, "the token id whose logit (at the last position) is attributed")
      ->required()->check(integer_value());
  attr->add_option("--method", b->method, "grad-x-input (default) or integrated-gradients");
  attr->add_option("--steps", b->steps, "integrated gradients' points from a zero embedding (1-1024, default 32)")
      ->check(integer_value());
  attr->add_option("--objective", b->objective, "logit (default) or logprob");
  attr->footer("--json prints {\"attribution\": [T]} (gradient x input summed over features, per position)");
  attr->callback([b, &action] { action = [b] { return cmd_attribute(*b); }; });
}

}  // namespace blockscope::cli
