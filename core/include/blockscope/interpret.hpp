// Interpretability on a GPT, exact and proven against PyTorch (tests/reference/make_interpret_goldens.py): the
// logit lens, head ablation and input attribution (gradient x input, integrated gradients). Batch 1 throughout:
// a learner asks about one prompt.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <span>
#include <string_view>
#include <vector>

#include "blockscope/gpt_model.hpp"
#include "blockscope/multi_head_attention.hpp"
#include "blockscope/tensor.hpp"

namespace blockscope {

// One attention head: block and head, 0-based.
struct HeadRef {
  int64_t block = 0, head = 0;
  bool operator==(const HeadRef&) const = default;
};
// "1.0,3.2" (block.head, 0-based, comma-separated; "" is none) checked against cfg: Error naming a bad entry.
std::vector<HeadRef> parse_heads(std::string_view text, const GPTConfig& cfg);
// Ablates the listed heads in every forward (and backward) pass of `model` until changed: their outputs, before
// each block's output projection, zeroed or replaced by their causal mean over positions (multi_head_attention.hpp).
// An empty list restores the model. Error naming a head outside the model.
void set_head_ablation(GPTModel& model, std::span<const HeadRef> heads, HeadAblation mode = HeadAblation::Zero);
std::vector<HeadRef> ablated_heads(const GPTModel& model);

// Logit lens: (L + 1, T, V) logits, layer 0 the embeddings' output and layer l block l's output, each through the
// final LayerNorm and the output head (the last layer's are the model's logits). Checked against the memory
// budget before anything is allocated.
Tensor logit_lens(GPTModel& model, std::span<const int32_t> ids);
// softmax(row)[target] of each row of a (..., V) tensor of logits (the lens: the target's probability at every layer
// and position), in double; Error for a target outside [0, V).
std::vector<float> token_probabilities(const Tensor& logits, int64_t target);

enum class AttributionMethod { GradTimesInput, IntegratedGradients };
enum class AttributionObjective { Logit, LogProb };
struct AttributionOptions {
  AttributionMethod method = AttributionMethod::GradTimesInput;
  AttributionObjective objective = AttributionObjective::Logit;
  int64_t steps = 32;  // integrated gradients: the right Riemann sum's points alpha = k / steps, k = 1..steps
  static constexpr int64_t kMaxSteps = 1024;
  // The JavaScript API's object: "method" ("grad-x-input" | "integrated-gradients"), "objective" ("logit" |
  // "logprob"), "steps"; all optional, strict.
  static AttributionOptions from_json(const nlohmann::json& j);
};
// "zero" | "mean".
HeadAblation parse_head_ablation(std::string_view name);
// How much each input position's embedding (token + position, the first block's input) drives the objective —
// the target id's logit, or its log-probability, at the last position: gradient x input summed over features, or
// integrated gradients from a zero embedding, x * mean_k d objective(alpha_k x) / dx, summed over features (the
// values then add up to objective(x) - objective(0) as steps grow). Float32 weights only (it needs gradients).
std::vector<float> attribute(GPTModel& model, std::span<const int32_t> ids, int64_t target,
                             const AttributionOptions& opts = {});
const char* attribution_method_name(AttributionMethod m);
AttributionMethod parse_attribution_method(std::string_view name);

}  // namespace blockscope
