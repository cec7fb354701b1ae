// config.json of both checkpoint layouts: reading the book's keys or Hugging Face GPT-2's into a GPTConfig,
// and writing the config that matches a saved model.
#include <nlohmann/json.hpp>
#include <utility>

#include "blockscope/checkpoint.hpp"
#include "blockscope/error.hpp"
#include "json_reader.hpp"
#include "number_text.hpp"

namespace blockscope {

namespace {
using json = nlohmann::json;
using detail::short_dump;
constexpr CheckpointLayout kHF = CheckpointLayout::HuggingFace;
}  // namespace

// ---------------------------------------------------------------------------------------------------------
// config.json
// ---------------------------------------------------------------------------------------------------------
namespace {
int64_t hf_int(const json& j, const char* key) {
  require(j.contains(key), "Hugging Face config is missing '", key, "'");
  require(!detail::integer_out_of_range(j[key]), "config key '", key, "' must be an integer, got ",
          short_dump(j[key]), ", which is too large (at most 9223372036854775807)");
  require(j[key].is_number_integer(), "config key '", key, "' must be an integer, got ", short_dump(j[key]));
  return j[key].get<int64_t>();
}

// A key that, if present, must hold one of the values our forward pass computes.
void require_value(const json& j, const char* key, std::initializer_list<json> allowed, const char* why) {
  if (!j.contains(key)) return;
  for (const auto& a : allowed)
    if (j[key] == a) return;
  throw Error(detail::concat("config key '", key, "' is ", short_dump(j[key]), "; ", why));
}

int64_t hf_context_length(const json& j) {
  const bool pos = j.contains("n_positions"), ctx = j.contains("n_ctx");
  require(pos || ctx, "Hugging Face config is missing 'n_positions' (or 'n_ctx')");
  const int64_t n = hf_int(j, pos ? "n_positions" : "n_ctx");
  if (pos && ctx)
    require(hf_int(j, "n_ctx") == n, "config keys 'n_positions' (", n, ") and 'n_ctx' (", hf_int(j, "n_ctx"),
            ") disagree");
  return n;
}

void check_hf_semantics(const json& j) {
  require_value(j, "model_type", {"gpt2"}, "only GPT-2 checkpoints are supported");
  require_value(j, "scale_attn_weights", {true}, "attention scores are always scaled by 1/sqrt(head_dim)");
  require_value(j, "scale_attn_by_inverse_layer_idx", {false}, "per-layer attention scaling is not supported");
  require_value(j, "add_cross_attention", {false}, "cross-attention is not supported");
}

// transformers' ACT2FN names for the activations the core computes.
constexpr std::pair<const char*, Activation> kHfActivations[] = {
    {"gelu_new", Activation::GeluTanh}, {"gelu_pytorch_tanh", Activation::GeluTanh},
    {"gelu", Activation::GeluErf},      {"relu", Activation::Relu},
    {"tanh", Activation::Tanh}};

Activation hf_activation(const json& j) {
  if (!j.contains("activation_function")) return Activation::GeluTanh;  // GPT2Config's default, "gelu_new"
  const json& v = j["activation_function"];
  for (const auto& [name, act] : kHfActivations)
    if (v == name) return act;
  throw Error(detail::concat("config key 'activation_function' is ", v.is_string() ? short_dump(v) : "not a string",
                             "; supported: gelu_new, gelu_pytorch_tanh, gelu, relu, tanh"));
}

const char* hf_activation_name(Activation a) {
  for (const auto& [name, act] : kHfActivations)
    if (act == a) return name;
  return "gelu_new";
}

GPTConfig hf_config(const json& j) {
  check_hf_semantics(j);
  GPTConfig c;
  c.vocab_size = hf_int(j, "vocab_size");
  c.context_length = hf_context_length(j);
  c.emb_dim = hf_int(j, "n_embd");
  c.n_heads = hf_int(j, "n_head");
  c.n_layers = hf_int(j, "n_layer");
  if (j.contains("n_inner") && !j["n_inner"].is_null()) c.ffn_hidden = hf_int(j, "n_inner");  // null: 4 * n_embd
  c.activation = hf_activation(j);
  if (j.contains("layer_norm_epsilon")) {
    require(j["layer_norm_epsilon"].is_number(), "config key 'layer_norm_epsilon' must be a number, got ",
            short_dump(j["layer_norm_epsilon"]));
    c.layer_norm_epsilon = j["layer_norm_epsilon"].get<float>();
  }
  if (j.contains("resid_pdrop")) {
    const auto& p = j["resid_pdrop"];
    require(p.is_number() && p.get<double>() >= 0.0 && p.get<double>() < 1.0,
            "config key 'resid_pdrop' must be a number in [0, 1), got ", short_dump(p));
    c.drop_rate = p.get<double>();
  }
  if (j.contains("tie_word_embeddings")) {
    require(j["tie_word_embeddings"].is_boolean(), "config key 'tie_word_embeddings' must be true or false, got ",
            short_dump(j["tie_word_embeddings"]));
    c.tie_weights = j["tie_word_embeddings"].get<bool>();
  } else {
    c.tie_weights = true;  // transformers' PretrainedConfig default
  }
  c.qkv_bias = true;  // GPT-2's c_attn always has a bias
  c.norm = NormPlacement::Pre;
  c.validate();
  return c;
}
}  // namespace

GPTConfig read_config(std::string_view config_json) {
  const json j = detail::parse_json(config_json, "config.json");
  require(j.is_object(), "config.json must be a JSON object, got ", j.type_name());
  const bool hf = j.contains("n_embd"), book = j.contains("emb_dim");
  require(!(hf && book), "config.json has both 'n_embd' (Hugging Face) and 'emb_dim' (book) keys");
  require(hf || book, "config.json has neither 'n_embd' (Hugging Face GPT-2) nor 'emb_dim' (book GPTModel)");
  return hf ? hf_config(j) : GPTConfig::from_json(j);
}

namespace {
using detail::short_float;

json hf_config_json(const GPTConfig& cfg) {
  return {{"architectures", {"GPT2LMHeadModel"}},
          {"model_type", "gpt2"},
          {"activation_function", hf_activation_name(cfg.activation)},
          {"vocab_size", cfg.vocab_size},
          {"n_positions", cfg.context_length},
          {"n_embd", cfg.emb_dim},
          {"n_layer", cfg.n_layers},
          {"n_head", cfg.n_heads},
          {"n_inner", cfg.ffn_hidden > 0 && cfg.ffn_hidden != 4 * cfg.emb_dim ? json(cfg.ffn_hidden) : json(nullptr)},
          {"layer_norm_epsilon", short_float(cfg.layer_norm_epsilon)},
          {"resid_pdrop", cfg.drop_rate},
          {"embd_pdrop", cfg.drop_rate},
          {"attn_pdrop", cfg.drop_rate},
          {"scale_attn_weights", true},
          {"tie_word_embeddings", cfg.tie_weights}};
}
}  // namespace

std::string config_json(const GPTModel& model, CheckpointLayout layout) {
  const GPTConfig& cfg = model.config();
  if (layout == kHF) {
    require_hf_compatible(cfg, "save");
    return hf_config_json(cfg).dump(2) + "\n";
  }
  json j = cfg.to_json();
  j["layer_norm_epsilon"] = short_float(cfg.layer_norm_epsilon);
  return j.dump(2) + "\n";
}

}  // namespace blockscope
