// Every model-part config read from JSON, once, in the core: GPT, transformer block, attention and
// feed-forward. One strict reader: unknown keys are rejected by name, and every value is type-checked (an
// integer key rejects 2.5, 1e300 and 2^64; a flag rejects "yes") before the config's own validate().
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>

#include "blockscope/error.hpp"
#include "blockscope/feed_forward.hpp"
#include "blockscope/gpt_model.hpp"
#include "blockscope/multi_head_attention.hpp"
#include "blockscope/transformer_block.hpp"

namespace blockscope {

namespace {
using json = nlohmann::json;

// A JSON object read key by key; `what` names the config in errors ("GPT config", "block config", ...).
class Reader {
 public:
  Reader(const json& j, const char* what, std::initializer_list<const char*> known) : j_(j), what_(what) {
    require(j.is_object(), "a ", what, " must be a JSON object, got ", j.type_name());
    std::string list;
    for (const char* k : known) list += (list.empty() ? "" : ", ") + std::string(k);
    for (const auto& [key, value] : j.items()) {
      bool ok = false;
      for (const char* k : known) ok |= key == k;
      require(ok, "unknown config key '", key, "' in the ", what, " (expected ", list, ")");
    }
  }
  bool has(const char* key) const { return j_.contains(key) && !j_[key].is_null(); }
  int64_t integer(const char* key) const {
    require(has(key), what_, " is missing '", key, "'");
    const json& v = j_[key];
    require(v.is_number_integer() && (!v.is_number_unsigned() || v.get<uint64_t>() <= INT64_MAX), what_, " key '",
            key, "' must be an integer, got ", short_dump(v));
    return v.get<int64_t>();
  }
  int64_t integer(const char* key, int64_t fallback) const { return has(key) ? integer(key) : fallback; }
  double number(const char* key, double fallback) const {
    if (!has(key)) return fallback;
    const json& v = j_[key];
    require(v.is_number() && std::isfinite(v.get<double>()), what_, " key '", key, "' must be a finite number, got ",
            short_dump(v));
    return v.get<double>();
  }
  bool flag(const char* key, bool fallback) const {
    if (!has(key)) return fallback;
    require(j_[key].is_boolean(), what_, " key '", key, "' must be true or false, got ", short_dump(j_[key]));
    return j_[key].get<bool>();
  }
  std::string text(const char* key, const char* fallback) const {
    if (!has(key)) return fallback;
    require(j_[key].is_string(), what_, " key '", key, "' must be a string, got ", short_dump(j_[key]));
    return j_[key].get<std::string>();
  }

  // At most 60 characters of a value, so a hostile multi-megabyte value cannot flood an error message.
  static std::string short_dump(const json& v) {
    if (v.is_structured()) return v.is_array() ? "an array" : "an object";
    std::string s = v.dump();
    return s.size() > 60 ? s.substr(0, 57) + "..." : s;
  }

 private:
  const json& j_;
  const char* what_;
};
}  // namespace

GPTConfig GPTConfig::from_json(const json& j) {
  const Reader r(j, "GPT config",
                 {"vocab_size", "context_length", "emb_dim", "n_heads", "n_layers", "drop_rate", "qkv_bias",
                  "tie_weights", "norm", "layer_norm_epsilon", "ffn_hidden", "activation"});
  GPTConfig c;
  c.vocab_size = r.integer("vocab_size");
  c.context_length = r.integer("context_length");
  c.emb_dim = r.integer("emb_dim");
  c.n_heads = r.integer("n_heads");
  c.n_layers = r.integer("n_layers");
  c.drop_rate = r.number("drop_rate", c.drop_rate);
  c.qkv_bias = r.flag("qkv_bias", c.qkv_bias);
  c.tie_weights = r.flag("tie_weights", c.tie_weights);
  c.norm = parse_norm_placement(r.text("norm", "pre"));
  c.layer_norm_epsilon = static_cast<float>(r.number("layer_norm_epsilon", c.layer_norm_epsilon));
  c.ffn_hidden = r.integer("ffn_hidden", 0);
  c.activation = parse_activation(r.text("activation", "gelu_tanh").c_str());
  c.validate();
  return c;
}

json GPTConfig::to_json() const {
  return {{"vocab_size", vocab_size},
          {"context_length", context_length},
          {"emb_dim", emb_dim},
          {"n_heads", n_heads},
          {"n_layers", n_layers},
          {"drop_rate", drop_rate},
          {"qkv_bias", qkv_bias},
          {"tie_weights", tie_weights},
          {"norm", norm_placement_name(norm)},
          {"layer_norm_epsilon", std::stod(detail::concat(layer_norm_epsilon))},  // 1e-05, not 9.99999974e-06
          {"ffn_hidden", block().hidden_dim()},
          {"activation", activation_name(activation)}};
}

BlockConfig BlockConfig::from_json(const json& j) {
  const Reader r(j, "block config",
                 {"emb_dim", "context_length", "n_heads", "drop_rate", "qkv_bias", "norm", "ffn_hidden",
                  "activation", "causal", "attn_out_bias", "ln_eps"});
  BlockConfig b;
  b.emb_dim = r.integer("emb_dim");
  b.context_length = r.integer("context_length");
  b.n_heads = r.integer("n_heads");
  b.drop_rate = r.number("drop_rate", 0.0);
  b.qkv_bias = r.flag("qkv_bias", false);
  b.norm = parse_norm_placement(r.text("norm", "pre"));
  b.ffn_hidden = r.integer("ffn_hidden", 0);
  b.activation = parse_activation(r.text("activation", "gelu_tanh").c_str());
  b.causal = r.flag("causal", true);
  b.attn_out_bias = r.flag("attn_out_bias", true);
  b.ln_eps = static_cast<float>(r.number("ln_eps", 1e-5));
  b.validate();
  return b;
}

json BlockConfig::to_json() const {
  return {{"emb_dim", emb_dim},         {"context_length", context_length},
          {"n_heads", n_heads},         {"drop_rate", drop_rate},
          {"qkv_bias", qkv_bias},       {"norm", norm_placement_name(norm)},
          {"ffn_hidden", hidden_dim()}, {"activation", activation_name(activation)},
          {"causal", causal},           {"attn_out_bias", attn_out_bias},
          {"ln_eps", std::stod(detail::concat(ln_eps))}};
}

AttentionConfig AttentionConfig::from_json(const json& j) {
  const Reader r(j, "attention config",
                 {"d_in", "d_out", "context_length", "num_heads", "qkv_bias", "out_bias", "causal", "drop_rate"});
  AttentionConfig a;
  a.d_in = r.integer("d_in");
  a.d_out = r.integer("d_out");
  a.context_length = r.integer("context_length");
  a.num_heads = r.integer("num_heads");
  a.qkv_bias = r.flag("qkv_bias", false);
  a.out_bias = r.flag("out_bias", true);
  a.causal = r.flag("causal", true);
  a.drop_rate = r.number("drop_rate", 0.0);
  a.validate();
  return a;
}

FeedForwardConfig FeedForwardConfig::from_json(const json& j) {
  const Reader r(j, "feed-forward config", {"emb_dim", "hidden_dim", "activation", "bias"});
  FeedForwardConfig f;
  f.emb_dim = r.integer("emb_dim");
  f.hidden_dim = r.integer("hidden_dim");
  f.activation = parse_activation(r.text("activation", "gelu_tanh").c_str());
  f.bias = r.flag("bias", true);
  f.validate();
  return f;
}

}  // namespace blockscope
