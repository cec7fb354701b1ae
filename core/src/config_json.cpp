// Every model-part config read from JSON, once, in the core: GPT, transformer block, attention and
// feed-forward, through the one strict reader of json_reader.hpp, then the config's own validate(). Also the
// core's one JSON parser (parse_json) and the helpers that keep JSON values in error messages short.
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_set>
#include <vector>

#include "blockscope/error.hpp"
#include "blockscope/feed_forward.hpp"
#include "blockscope/generation.hpp"
#include "blockscope/gpt_model.hpp"
#include "blockscope/multi_head_attention.hpp"
#include "blockscope/transformer_block.hpp"
#include "json_reader.hpp"
#include "number_text.hpp"

namespace blockscope {

using json = nlohmann::json;
using detail::Reader;

namespace detail {

namespace {

// nlohmann's own DOM builder (the one json::parse uses) fed by its SAX parser, which is iterative: each container
// is seen as it opens, so a too-deep document is refused before it is built, and each key as it is read, so a
// duplicate is caught per object (nlohmann alone would keep the last one silently). A SAX handler rather than
// json::parse's callback: one parser instantiation instead of two (with and without a callback) and no
// std::function, 4 KB less wasm.
class StrictDomBuilder : public nlohmann::detail::json_sax_dom_parser<json> {
 public:
  StrictDomBuilder(json& result, const char* what, const JsonParseOptions& options)
      : json_sax_dom_parser(result), what_(what), options_(options) {}
  bool start_object(std::size_t n) {
    open();
    keys_.emplace_back();
    return json_sax_dom_parser::start_object(n);
  }
  bool end_object() {
    keys_.pop_back();
    --depth_;
    return json_sax_dom_parser::end_object();
  }
  bool start_array(std::size_t n) {
    open();
    return json_sax_dom_parser::start_array(n);
  }
  bool end_array() {
    --depth_;
    return json_sax_dom_parser::end_array();
  }
  bool key(std::string& key) {
    if (!keys_.back().insert(key).second)
      throw Error(concat(what_, " has the key '", excerpt(key), "' twice",
                         depth_ == 1 && options_.top_key_noun ? concat(" (duplicate ", options_.top_key_noun, ")")
                                                              : std::string()));
    return json_sax_dom_parser::key(key);
  }

 private:
  void open() {  // depth_ = containers already open
    require(depth_ < options_.max_depth, what_, " nests deeper than ", options_.depth_limit, " (depth ", depth_ + 1,
            ")");
    ++depth_;
  }
  const char* what_;
  const JsonParseOptions& options_;
  int depth_ = 0;
  std::vector<std::unordered_set<std::string>> keys_;  // one key set per open object
};

}  // namespace

json parse_json(std::string_view text, const char* what, const JsonParseOptions& options) {
  // nlohmann's lexer takes a NUL byte for the end of the input and would accept "{}\0anything"; JSON never holds
  // a raw NUL (not even in strings), and the safetensors reference implementation refuses one too.
  if (const size_t nul = text.find('\0'); nul != std::string_view::npos)
    throw Error(concat(what, " is not valid JSON: a NUL byte at byte ", nul));
  json result;
  StrictDomBuilder builder(result, what, options);
  try {
    json::sax_parse(text.begin(), text.end(), &builder);  // strict: nothing but whitespace may follow the value
  } catch (const json::exception& e) {
    throw Error(concat(what, " is not valid JSON: ", e.what()));
  }
  return result;
}

std::string excerpt(std::string_view s) {
  return s.size() > 60 ? std::string(s.substr(0, 57)) + "..." : std::string(s);
}

std::string short_dump(const json& v) {
  if (v.is_array()) {  // a flat array of scalars (a shape, a pair of offsets) is shown, up to 60 characters
    std::string s = "[";
    for (const json& e : v) {
      if (e.is_structured()) return "an array";
      if (s.size() > 1) s += ',';
      s += short_dump(e);
      if (s.size() > 60) return excerpt(s);
    }
    return s + "]";
  }
  if (v.is_object()) return "an object";
  if (v.is_string()) {
    const auto& s = v.get_ref<const std::string&>();
    return s.size() > 58 ? json(s.substr(0, 55)).dump(-1, ' ', false, json::error_handler_t::replace) + "..."
                         : v.dump(-1, ' ', false, json::error_handler_t::replace);
  }
  return excerpt(v.dump());
}

bool integer_out_of_range(const json& v) {
  if (v.is_number_unsigned()) return v.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (!v.is_number_float()) return false;
  const double d = v.get<double>();
  return std::isinf(d) || (d == std::floor(d) && std::fabs(d) >= 0x1p63);
}

}  // namespace detail

GPTConfig GPTConfig::from_json(const json& j) {
  const Reader r(j, "GPT config",
                 {"vocab_size", "context_length", "emb_dim", "n_heads", "n_layers", "drop_rate", "qkv_bias",
                  "tie_weights", "norm", "layer_norm_epsilon", "ffn_hidden", "activation", "residual"});
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
  c.residual = r.flag("residual", true);
  c.validate();
  return c;
}

json GPTConfig::to_json() const {
  json j = {{"vocab_size", vocab_size},
          {"context_length", context_length},
          {"emb_dim", emb_dim},
          {"n_heads", n_heads},
          {"n_layers", n_layers},
          {"drop_rate", drop_rate},
          {"qkv_bias", qkv_bias},
          {"tie_weights", tie_weights},
          {"norm", norm_placement_name(norm)},
          // 1e-05, not 9.99999974e-06: the float's shortest decimal, as a double
          {"layer_norm_epsilon", detail::short_float(layer_norm_epsilon)},
          {"ffn_hidden", block().hidden_dim()},
          {"activation", activation_name(activation)}};
  if (!residual) j["residual"] = false;
  return j;
}

BlockConfig BlockConfig::from_json(const json& j) {
  const Reader r(j, "block config",
                 {"emb_dim", "context_length", "n_heads", "drop_rate", "qkv_bias", "norm", "ffn_hidden",
                  "activation", "causal", "attn_out_bias", "ffn_bias", "ln_eps", "residual"});
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
  b.ffn_bias = r.flag("ffn_bias", true);
  b.ln_eps = static_cast<float>(r.number("ln_eps", 1e-5));
  b.residual = r.flag("residual", true);
  b.validate();
  return b;
}

json BlockConfig::to_json() const {
  json j = {{"emb_dim", emb_dim},         {"context_length", context_length},
          {"n_heads", n_heads},         {"drop_rate", drop_rate},
          {"qkv_bias", qkv_bias},       {"norm", norm_placement_name(norm)},
          {"ffn_hidden", hidden_dim()}, {"activation", activation_name(activation)},
          {"causal", causal},           {"attn_out_bias", attn_out_bias},
          {"ln_eps", detail::short_float(ln_eps)}, {"residual", residual}};
  if (!ffn_bias) j["ffn_bias"] = false;  // written only when off: configs from before it read back the same
  return j;
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

GenerateOptions GenerateOptions::from_json(const json& j) {
  GenerateOptions g;
  if (j.is_null()) return g;
  const Reader r(j, "generation options",
                 {"maxNewTokens", "temperature", "topK", "topP", "seed", "stopToken", "overflow"});
  g.max_new_tokens = r.integer("maxNewTokens", g.max_new_tokens);
  g.sampling.temperature = static_cast<float>(r.number("temperature", g.sampling.temperature));
  g.sampling.top_k = r.integer("topK", g.sampling.top_k);
  g.sampling.top_p = static_cast<float>(r.number("topP", g.sampling.top_p));
  const int64_t seed = r.integer("seed", 0);
  require(seed >= 0 && seed < (int64_t{1} << 53), "seed must be an integer in [0, 2^53), got ", seed);
  g.seed = static_cast<uint64_t>(seed);
  if (r.has("stopToken")) {
    const int64_t stop = r.integer("stopToken");
    require(stop >= INT32_MIN && stop <= INT32_MAX, "stopToken ", stop, " is not a token id");
    g.stop_token = static_cast<int32_t>(stop);
  }
  g.overflow = parse_context_overflow(r.text("overflow", "error"));
  g.sampling.validate();
  require(g.max_new_tokens >= 0, "maxNewTokens must be >= 0, got ", g.max_new_tokens);
  return g;
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
