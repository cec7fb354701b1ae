// embind bindings of the Blockscope core: marshalling only, no math. Arrays cross the boundary as typed
// arrays. Arrays returned to JS are zero-copy views (typed_memory_view) into wasm memory, valid only until
// the next call into the module (a later allocation may grow memory and detach them): the JS module in
// web/blockscope.js copies them before handing them out. Every C++ exception becomes a JS Error carrying the
// C++ message; the module stays usable afterwards. Objects (GPT, Block, FeedForward) must be .delete()d;
// web/blockscope.js wraps them so widgets never hold a raw handle.
#include <emscripten/bind.h>
#include <emscripten/val.h>
#include <malloc.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <exception>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "blockscope/blockscope.hpp"
#include "blockscope/checkpoint.hpp"
#include "blockscope/generation.hpp"
#include "blockscope/tokenizer.hpp"

namespace bs = blockscope;
using emscripten::val;

namespace {

// Message of the last failed call. A JS exception unwinds wasm frames without running destructors, so the
// JS Error is thrown only after the C++ exception has been fully handled, from this reused buffer.
std::string g_error;

[[noreturn]] void throw_js_error() {
  val::global("Error").new_(val(g_error)).throw_();
  __builtin_unreachable();
}

// Runs f, turning any C++ exception into a JS Error with the same message.
template <typename F>
auto guarded(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const std::exception& e) {
    g_error = e.what();
  } catch (...) {
    g_error = "unknown C++ exception in Blockscope";
  }
  throw_js_error();
}

val view(const float* data, size_t n) { return val(emscripten::typed_memory_view(n, data)); }
val view(const std::vector<float>& v) { return view(v.data(), v.size()); }

// Copies a JS Float32Array (or array of numbers) into a vector, naming `what` in errors.
std::vector<float> floats_from(const val& arr, const char* what) {
  if (!arr.instanceof(val::global("Float32Array"))) {
    if (!val::global("Array").call<bool>("isArray", arr))
      throw bs::Error(std::string(what) + " must be a Float32Array or an array of numbers");
    return floats_from(val::global("Float32Array").call<val>("from", arr), what);
  }
  const auto n = arr["length"].as<size_t>();
  std::vector<float> out(n);
  view(out.data(), n).call<void>("set", arr);
  return out;
}

std::vector<int32_t> ids_from(const val& arr) {
  if (!arr.instanceof(val::global("Int32Array"))) throw bs::Error("token ids must be an Int32Array");
  const auto n = arr["length"].as<size_t>();
  std::vector<int32_t> out(n);
  val(emscripten::typed_memory_view(n, out.data())).call<void>("set", arr);
  return out;
}

nlohmann::json json_from(const val& obj) {
  const std::string text = val::global("JSON").call<std::string>("stringify", obj);
  try {
    return nlohmann::json::parse(text.data(), text.data() + text.size());  // the core's (const char*) parser instantiation
  } catch (const nlohmann::json::exception& e) {
    throw bs::Error(std::string("configuration is not valid JSON: ") + e.what());
  }
}

val json_to_js(const nlohmann::json& j) { return val::global("JSON").call<val>("parse", j.dump()); }

val row_stats(const bs::RowStats& s) {
  val o = val::object();
  o.set("mean", view(s.mean));
  o.set("var", view(s.var));
  return o;
}

val norm_stats(const bs::LayerNormInspection& n) {
  val o = val::object();
  o.set("in", row_stats(n.in));
  o.set("out", row_stats(n.out));
  return o;
}

val block_inspection(const bs::BlockInspection& b) {
  val o = val::object();
  val steps = val::array();
  for (const auto& st : b.steps) {
    val step = val::object();
    step.set("op", st.op);
    step.set("mean", view(st.mean));
    step.set("var", view(st.var));
    step.set("norm", view(st.norm));
    steps.call<void>("push", step);
  }
  o.set("steps", steps);
  o.set("norm1", norm_stats(b.norm1));
  o.set("norm2", norm_stats(b.norm2));
  o.set("ffnHiddenPre", view(b.ffn_hidden_pre));
  o.set("ffnHiddenPost", view(b.ffn_hidden_post));
  o.set("attnWeights", view(b.attn_weights));
  o.set("residualNorm", view(b.residual_norm));
  return o;
}

val param_list(const bs::ParamArena& arena) {
  val list = val::array();
  for (const auto& p : arena.params()) {
    val item = val::object();
    item.set("name", p.name);
    val shape = val::array();
    for (const int64_t d : p.shape) shape.call<void>("push", static_cast<double>(d));
    item.set("shape", shape);
    list.call<void>("push", item);
  }
  return list;
}

void set_param(bs::ParamArena& arena, const std::string& name, const val& data) {
  const bs::ParamInfo* p = arena.find(name);
  if (!p) throw bs::Error("no parameter named '" + name + "'");
  const std::vector<float> values = floats_from(data, name.c_str());
  bs::require_finite(values.data(), static_cast<int64_t>(values.size()), name.c_str());
  arena.assign(name, p->shape, values);
}

val get_param(bs::ParamArena& arena, const std::string& name) {
  const auto span = arena.get(name);
  return view(span.data(), span.size());
}

bs::Activation activation_from(const std::string& kind) { return bs::parse_activation(kind.c_str()); }

// --- handles ------------------------------------------------------------------------------------------

// Bytes in wasm memory that JS fills in place (e.g. a model file streamed from fetch), so a large file is
// never held twice on the JS side. view() is valid until the next allocation in the module.
class ByteBuffer {
 public:
  explicit ByteBuffer(double size) : bytes_(guarded([&] {
    bs::require(size >= 0 && size <= 4.0e9 && size == static_cast<double>(static_cast<size_t>(size)),
                "buffer size must be a whole number of bytes below 4 GB, got ", size);
    return std::vector<uint8_t>(static_cast<size_t>(size));
  })) {}
  val view() { return val(emscripten::typed_memory_view(bytes_.size(), bytes_.data())); }
  double size() const { return static_cast<double>(bytes_.size()); }
  std::span<const uint8_t> bytes() const { return bytes_; }

 private:
  std::vector<uint8_t> bytes_;
};

class GPTHandle {
 public:
  GPTHandle(val config, double seed)
      : model_(guarded([&] { return bs::GPTModel(bs::GPTConfig::from_json(json_from(config)), seed_of(seed)); })) {}
  // A checkpoint: config.json text and model.safetensors bytes (book or Hugging Face GPT-2 layout), refused
  // before allocating if its float32 weights would exceed max_parameter_bytes.
  GPTHandle(std::string config_json, const ByteBuffer& weights, double max_parameter_bytes)
      : model_(guarded([&] {
          bs::LoadOptions opts;
          opts.max_parameter_bytes = static_cast<int64_t>(max_parameter_bytes);
          return bs::load_model(config_json, weights.bytes(), opts);
        })) {}

  static uint64_t seed_of(double seed) {
    if (!(seed >= 0 && seed <= 9007199254740991.0) || seed != static_cast<double>(static_cast<uint64_t>(seed)))
      throw bs::Error("seed must be an integer in [0, 2^53), got " + std::to_string(seed));
    return static_cast<uint64_t>(seed);
  }

  val forward(val ids, int B, int T, bool inspect) {
    return guarded([&] {
      const std::vector<int32_t> v = ids_from(ids);
      logits_ = model_.forward(v, B, T, inspect);
      return view(logits_.data);
    });
  }

  val inspection() const {
    return guarded([&] {
      const auto& insp = model_.last_inspection();
      if (insp.empty()) throw bs::Error("no inspection recorded: call forward(ids, B, T, true) first");
      val o = val::object();
      o.set("B", static_cast<double>(insp.B));
      o.set("T", static_cast<double>(insp.T));
      o.set("C", static_cast<double>(insp.C));
      o.set("H", static_cast<double>(insp.H));
      o.set("NH", static_cast<double>(insp.NH));
      val layers = val::array();
      for (const auto& l : insp.layers) layers.call<void>("push", block_inspection(l));
      o.set("layers", layers);
      o.set("finalNorm", norm_stats(insp.final_norm));
      return o;
    });
  }

  val config() const { return json_to_js(model_.config().to_json()); }
  bs::GPTModel& model() { return model_; }
  double numParameters() const { return static_cast<double>(model_.num_parameters()); }
  val parameters() const { return param_list(model_.params()); }
  void setParameter(const std::string& name, val data) { guarded([&] { set_param(model_.params(), name, data); }); }
  val getParameter(const std::string& name) { return guarded([&] { return get_param(model_.params(), name); }); }
  void setNormPlacement(const std::string& p) {
    guarded([&] { model_.set_norm_placement(bs::parse_norm_placement(p)); });
  }

 private:
  bs::GPTModel model_;
  bs::Tensor logits_;
};

// A tokenizer: kind "gpt2" (vocab.json/encoder.json text + merges.txt/vocab.bpe text), "bytes" or "bytes+eot".
class TokenizerHandle {
 public:
  TokenizerHandle(const std::string& kind, const std::string& vocab, const std::string& merges)
      : tok_(guarded([&]() -> std::unique_ptr<bs::Tokenizer> {
          if (kind == "gpt2") return std::make_unique<bs::Gpt2Tokenizer>(bs::Gpt2Tokenizer::from_strings(vocab, merges));
          if (kind == "bytes" || kind == "bytes+eot") return std::make_unique<bs::ByteTokenizer>(kind == "bytes+eot");
          throw bs::Error("unknown tokenizer kind '" + kind + "' (expected gpt2, bytes or bytes+eot)");
        })) {}
  val encode(const std::string& text) {
    return guarded([&] {
      ids_ = tok_->encode(text);
      return val(emscripten::typed_memory_view(ids_.size(), ids_.data()));
    });
  }
  // The bytes of the ids (a partial UTF-8 sequence stays as bytes: decode them with a streaming TextDecoder).
  val decodeBytes(val ids) {
    return guarded([&] {
      bytes_ = tok_->decode(ids_from(ids));
      return val(emscripten::typed_memory_view(bytes_.size(), reinterpret_cast<const uint8_t*>(bytes_.data())));
    });
  }
  // Each token's own bytes, for display.
  val tokenBytes(int id) {
    return guarded([&] {
      bytes_ = tok_->token_text(id);
      return val(emscripten::typed_memory_view(bytes_.size(), reinterpret_cast<const uint8_t*>(bytes_.data())));
    });
  }
  int vocabSize() const { return tok_->vocab_size(); }
  val eotId() const { return tok_->eot_id() ? val(*tok_->eot_id()) : val::null(); }
  std::string name() const { return tok_->name(); }

 private:
  std::unique_ptr<bs::Tokenizer> tok_;
  std::vector<int32_t> ids_;
  std::string bytes_;
};

// Generation options from JS: {maxNewTokens, temperature, topK, topP, seed, stopToken, overflow}.
bs::GenerateOptions generate_options_from(const val& o) {
  bs::GenerateOptions g;
  if (o.isUndefined() || o.isNull()) return g;
  const auto number = [&](const char* key, double fallback) {
    const val v = o[key];
    if (v.isUndefined() || v.isNull()) return fallback;
    bs::require(v.typeOf().as<std::string>() == "number", "generation option '", key, "' must be a number");
    return v.as<double>();
  };
  const auto integer = [&](const char* key, double fallback) {
    const double v = number(key, fallback);
    bs::require(std::isfinite(v) && v == std::floor(v), "generation option '", key, "' must be an integer, got ", v);
    return v;
  };
  g.max_new_tokens = static_cast<int64_t>(integer("maxNewTokens", 50));
  g.sampling.temperature = static_cast<float>(number("temperature", 1.0));
  g.sampling.top_k = static_cast<int64_t>(integer("topK", 0));
  g.sampling.top_p = static_cast<float>(number("topP", 1.0));
  g.seed = GPTHandle::seed_of(integer("seed", 0));
  if (!o["stopToken"].isUndefined() && !o["stopToken"].isNull())
    g.stop_token = static_cast<int32_t>(integer("stopToken", -1));
  const val overflow = o["overflow"];
  if (!overflow.isUndefined()) {
    const auto s = overflow.as<std::string>();
    bs::require(s == "error" || s == "crop", "overflow must be 'error' or 'crop', got '", s, "'");
    g.overflow = s == "crop" ? bs::ContextOverflow::Crop : bs::ContextOverflow::Error;
  }
  return g;
}

// A running generation over a GPT: one token per next(). Must be deleted before its GPT.
class GeneratorHandle {
 public:
  GeneratorHandle(GPTHandle& gpt, val ids, val options)
      : gen_(guarded([&] { return bs::Generator(gpt.model(), ids_from(ids), generate_options_from(options)); })) {}
  // The next token id, or -1 once finished.
  int next() {
    return guarded([&] {
      const auto t = gen_.next();
      return t ? *t : -1;
    });
  }
  std::string stopReason() const { return gen_.stop_reason(); }
  val lastLogits() const { return view(gen_.last_logits()); }

 private:
  bs::Generator gen_;
};

// Block config: the book's keys (emb_dim, context_length, n_heads, drop_rate, qkv_bias) plus norm ("pre" or
// "post") and the encoder variations (ffn_hidden, activation, causal, attn_out_bias).
bs::BlockConfig block_config_from(const val& cfg_val) {
  const nlohmann::json j = json_from(cfg_val);
  bs::require(j.is_object(), "a block config must be an object");
  static const char* const known[] = {"emb_dim",    "context_length", "n_heads", "drop_rate",    "qkv_bias",
                                      "norm",       "ffn_hidden",     "activation", "causal", "attn_out_bias"};
  for (const auto& [key, value] : j.items())
    bs::require(std::find(std::begin(known), std::end(known), key) != std::end(known), "unknown block config key '",
                key, "'");
  for (const char* key : {"emb_dim", "context_length", "n_heads"})
    bs::require(j.contains(key) && j[key].is_number_integer(), "block config needs an integer '", key, "'");
  bs::BlockConfig b;
  b.emb_dim = j["emb_dim"].get<int64_t>();
  b.context_length = j["context_length"].get<int64_t>();
  b.n_heads = j["n_heads"].get<int64_t>();
  b.drop_rate = j.value("drop_rate", 0.0);
  b.qkv_bias = j.value("qkv_bias", false);
  b.norm = bs::parse_norm_placement(j.value("norm", std::string("pre")));
  b.ffn_hidden = j.value("ffn_hidden", int64_t{0});
  b.activation = bs::parse_activation(j.value("activation", std::string("gelu_tanh")).c_str());
  b.causal = j.value("causal", true);
  b.attn_out_bias = j.value("attn_out_bias", true);
  b.validate();
  return b;
}

// Attention config: d_in, d_out, context_length, num_heads, qkv_bias, causal.
bs::AttentionConfig attention_config_from(const val& cfg_val) {
  const nlohmann::json j = json_from(cfg_val);
  bs::require(j.is_object(), "an attention config must be an object");
  for (const char* key : {"d_in", "d_out", "context_length", "num_heads"})
    bs::require(j.contains(key) && j[key].is_number_integer(), "attention config needs an integer '", key, "'");
  bs::AttentionConfig a;
  a.d_in = j["d_in"].get<int64_t>();
  a.d_out = j["d_out"].get<int64_t>();
  a.context_length = j["context_length"].get<int64_t>();
  a.num_heads = j["num_heads"].get<int64_t>();
  a.qkv_bias = j.value("qkv_bias", false);
  a.causal = j.value("causal", true);
  a.validate();
  return a;
}

class AttentionHandle {
 public:
  AttentionHandle(val config, double seed)
      : att_(guarded([&] { return bs::MultiHeadAttention(attention_config_from(config), GPTHandle::seed_of(seed)); })) {}

  // x (B, T, d_in) -> {output (B, T, d_out), weights (B, NH, T, T)}
  val forward(val x, int B, int T) {
    return guarded([&] {
      const std::vector<float> in = floats_from(x, "attention input");
      bs::require(B > 0 && T > 0, "B and T must be positive, got B=", B, " T=", T);
      const int64_t d = att_.config().d_in;
      bs::require(static_cast<int64_t>(in.size()) == int64_t{B} * T * d, "attention input needs B x T x d_in = ", B,
                  " x ", T, " x ", d, " = ", int64_t{B} * T * d, " values, got ", in.size());
      out_ = att_.forward(bs::Tensor({B, T, d}, in));
      val o = val::object();
      o.set("output", view(out_.data));
      o.set("weights", view(att_.last_attn_weights().data));
      return o;
    });
  }
  val parameters() { return param_list(*att_.own_params()); }
  double numParameters() { return static_cast<double>(att_.own_params()->used()); }
  void setParameter(const std::string& name, val data) { guarded([&] { set_param(*att_.own_params(), name, data); }); }
  val getParameter(const std::string& name) { return guarded([&] { return get_param(*att_.own_params(), name); }); }

 private:
  bs::MultiHeadAttention att_;
  bs::Tensor out_;
};

class BlockHandle {
 public:
  BlockHandle(val config, double seed)
      : block_(guarded([&] { return bs::TransformerBlock(block_config_from(config), GPTHandle::seed_of(seed)); })) {}

  // x (B, T, emb_dim) -> {output, inspection}
  val forward(val x, int B, int T) {
    return guarded([&] {
      const std::vector<float> in = floats_from(x, "block input");
      const int64_t C = block_.config().emb_dim;
      bs::require(B > 0 && T > 0, "B and T must be positive, got B=", B, " T=", T);
      bs::require(static_cast<int64_t>(in.size()) == int64_t{B} * T * C, "block input needs B x T x emb_dim = ", B,
                  " x ", T, " x ", C, " = ", int64_t{B} * T * C, " values, got ", in.size());
      out_ = block_.forward(bs::Tensor({B, T, C}, in), &insp_);
      val o = val::object();
      o.set("output", view(out_.data));
      o.set("inspection", block_inspection(insp_));
      return o;
    });
  }
  val config() const {
    const auto& c = block_.config();
    return json_to_js({{"emb_dim", c.emb_dim},         {"context_length", c.context_length},
                       {"n_heads", c.n_heads},         {"drop_rate", c.drop_rate},
                       {"qkv_bias", c.qkv_bias},       {"norm", bs::norm_placement_name(c.norm)},
                       {"ffn_hidden", c.hidden_dim()}, {"activation", bs::activation_name(c.activation)},
                       {"causal", c.causal},           {"attn_out_bias", c.attn_out_bias}});
  }
  val parameters() { return param_list(*block_.own_params()); }
  double numParameters() { return static_cast<double>(block_.own_params()->used()); }
  void setParameter(const std::string& name, val data) { guarded([&] { set_param(*block_.own_params(), name, data); }); }
  val getParameter(const std::string& name) { return guarded([&] { return get_param(*block_.own_params(), name); }); }
  void setNormPlacement(const std::string& p) {
    guarded([&] { block_.set_norm_placement(bs::parse_norm_placement(p)); });
  }

 private:
  bs::TransformerBlock block_;
  bs::Tensor out_;
  bs::BlockInspection insp_;
};

class FeedForwardHandle {
 public:
  FeedForwardHandle(int emb_dim, int hidden_dim, const std::string& activation, double seed)
      : ff_(guarded([&] {
          return bs::FeedForward(bs::FeedForwardConfig{emb_dim, hidden_dim, activation_from(activation), true},
                                 GPTHandle::seed_of(seed));
        })) {}

  // x (rows, emb_dim) -> {output, hiddenPre, hiddenPost}
  val forward(val x) {
    return guarded([&] {
      const std::vector<float> in = floats_from(x, "feed-forward input");
      const int64_t C = ff_.config().emb_dim;
      bs::require(!in.empty() && static_cast<int64_t>(in.size()) % C == 0, "feed-forward input of length ", in.size(),
                  " is not a whole number of rows of length emb_dim = ", C);
      out_ = ff_.forward(bs::Tensor({static_cast<int64_t>(in.size()) / C, C}, in));
      val o = val::object();
      o.set("output", view(out_.data));
      o.set("hiddenPre", view(ff_.last_hidden_pre().data));
      o.set("hiddenPost", view(ff_.last_hidden_post().data));
      return o;
    });
  }
  val parameters() { return param_list(*ff_.own_params()); }
  double numParameters() { return static_cast<double>(ff_.own_params()->used()); }
  void setParameter(const std::string& name, val data) { guarded([&] { set_param(*ff_.own_params(), name, data); }); }
  val getParameter(const std::string& name) { return guarded([&] { return get_param(*ff_.own_params(), name); }); }

 private:
  bs::FeedForward ff_;
  bs::Tensor out_;
};

// --- free functions ---------------------------------------------------------------------------------------

// Storage behind the views the free functions return (valid until the next call).
bs::LayerNormTrace g_trace;
std::vector<float> g_out;

val layerNorm(val x, val gamma, val beta, double eps) {
  return guarded([&] {
    const auto xs = floats_from(x, "LayerNorm input"), g = floats_from(gamma, "gamma"), b = floats_from(beta, "beta");
    g_trace = bs::layer_norm_trace(xs, g, b, static_cast<float>(eps));
    val o = val::object();
    o.set("rows", static_cast<double>(g_trace.rows));
    o.set("dim", static_cast<double>(g_trace.dim));
    o.set("mean", view(g_trace.mean));
    o.set("var", view(g_trace.var));
    o.set("rstd", view(g_trace.rstd));
    o.set("normalized", view(g_trace.normalized));
    o.set("output", view(g_trace.output));
    return o;
  });
}

val activation(const std::string& kind, val x) {
  return guarded([&] {
    const auto xs = floats_from(x, "activation input");
    g_out = bs::activate(activation_from(kind), bs::Tensor({static_cast<int64_t>(xs.size())}, xs)).data;
    return view(g_out);
  });
}

val activationDerivative(const std::string& kind, val x) {
  return guarded([&] {
    const auto xs = floats_from(x, "activation input");
    g_out = bs::activation_derivative(activation_from(kind), bs::Tensor({static_cast<int64_t>(xs.size())}, xs)).data;
    return view(g_out);
  });
}

double countParameters(val config) {
  return guarded([&] { return static_cast<double>(bs::GPTModel::count_parameters(bs::GPTConfig::from_json(json_from(config)))); });
}

// Sizes and costs of a feed-forward network (the FFN explorer's numbers): parameters, FLOPs per token and
// hidden activations for a (B, n) batch.
val feedForwardCosts(double emb_dim, double hidden_dim, double B, double n) {
  return guarded([&] {
    const bs::FeedForwardConfig cfg{static_cast<int64_t>(emb_dim), static_cast<int64_t>(hidden_dim),
                                    bs::Activation::GeluTanh, true};
    val o = val::object();
    o.set("parameters", static_cast<double>(bs::FeedForward::num_params(cfg)));
    o.set("flopsPerToken", static_cast<double>(bs::FeedForward::flops_per_token(cfg)));
    o.set("hiddenEntries", static_cast<double>(bs::FeedForward::hidden_entries(cfg, static_cast<int64_t>(B),
                                                                               static_cast<int64_t>(n))));
    return o;
  });
}

// Parameter counts of one transformer block by part: attention, feedForward, norms, total.
val blockParameters(val config) {
  return guarded([&] {
    const bs::BlockConfig b = block_config_from(config);
    val o = val::object();
    const auto att = bs::MultiHeadAttention::num_params(b.attention());
    const auto ff = bs::FeedForward::num_params(b.feed_forward());
    o.set("attention", static_cast<double>(att));
    o.set("feedForward", static_cast<double>(ff));
    o.set("norms", static_cast<double>(2 * bs::LayerNorm::num_params(b.emb_dim)));
    o.set("total", static_cast<double>(bs::TransformerBlock::num_params(b)));
    return o;
  });
}

// Reads a config.json (book or Hugging Face keys) and checks its float32 weights against the byte limit
// before anything is allocated: {config (book keys), parameters, weightBytes}.
val checkModelConfig(const std::string& config_json, double max_parameter_bytes) {
  return guarded([&] {
    const bs::GPTConfig cfg = bs::read_config(config_json);
    bs::LoadOptions opts;
    opts.max_parameter_bytes = static_cast<int64_t>(max_parameter_bytes);
    bs::check_parameter_budget(cfg, opts);
    const auto n = bs::GPTModel::count_parameters(cfg);
    val o = val::object();
    o.set("config", json_to_js(cfg.to_json()));
    o.set("parameters", static_cast<double>(n));
    o.set("weightBytes", 4.0 * static_cast<double>(n));
    return o;
  });
}

// The k most likely next tokens of one row of logits: {ids, logits, probabilities} (softmax at `temperature`).
val topCandidates(val logits, int k, double temperature) {
  return guarded([&] {
    const std::vector<float> l = floats_from(logits, "logits");
    const auto c = bs::top_candidates(l, k, static_cast<float>(temperature));
    val ids = val::array(), lg = val::array(), pr = val::array();
    for (const auto& x : c) {
      ids.call<void>("push", x.id);
      lg.call<void>("push", x.logit);
      pr.call<void>("push", x.probability);
    }
    val o = val::object();
    o.set("ids", ids);
    o.set("logits", lg);
    o.set("probabilities", pr);
    return o;
  });
}

// Heap diagnostics for leak tests: bytes currently allocated by malloc, and the wasm memory size.
val memoryStats() {
  const struct mallinfo mi = mallinfo();
  val o = val::object();
  o.set("allocatedBytes", static_cast<double>(mi.uordblks));
  o.set("heapBytes", static_cast<double>(__builtin_wasm_memory_size(0) * 65536.0));
  return o;
}

val buildInfo() {
  val o = val::object();
#ifdef __wasm_simd128__
  o.set("flavour", std::string("simd"));
#else
  o.set("flavour", std::string("baseline"));
#endif
  o.set("version", std::string("0.1.0"));
  return o;
}

}  // namespace

EMSCRIPTEN_BINDINGS(blockscope) {
  using namespace emscripten;
  class_<ByteBuffer>("ByteBuffer")
      .constructor<double>()
      .function("view", &ByteBuffer::view)
      .function("size", &ByteBuffer::size);
  class_<TokenizerHandle>("Tokenizer")
      .constructor<std::string, std::string, std::string>()
      .function("encode", &TokenizerHandle::encode)
      .function("decodeBytes", &TokenizerHandle::decodeBytes)
      .function("tokenBytes", &TokenizerHandle::tokenBytes)
      .function("vocabSize", &TokenizerHandle::vocabSize)
      .function("eotId", &TokenizerHandle::eotId)
      .function("name", &TokenizerHandle::name);
  class_<GPTHandle>("GPT")
      .constructor<val, double>()
      .constructor<std::string, const ByteBuffer&, double>()
      .function("forward", &GPTHandle::forward)
      .function("inspection", &GPTHandle::inspection)
      .function("config", &GPTHandle::config)
      .function("numParameters", &GPTHandle::numParameters)
      .function("parameters", &GPTHandle::parameters)
      .function("setParameter", &GPTHandle::setParameter)
      .function("getParameter", &GPTHandle::getParameter)
      .function("setNormPlacement", &GPTHandle::setNormPlacement);
  class_<GeneratorHandle>("Generator")
      .constructor<GPTHandle&, val, val>()
      .function("next", &GeneratorHandle::next)
      .function("stopReason", &GeneratorHandle::stopReason)
      .function("lastLogits", &GeneratorHandle::lastLogits);
  class_<BlockHandle>("Block")
      .constructor<val, double>()
      .function("forward", &BlockHandle::forward)
      .function("config", &BlockHandle::config)
      .function("parameters", &BlockHandle::parameters)
      .function("numParameters", &BlockHandle::numParameters)
      .function("setParameter", &BlockHandle::setParameter)
      .function("getParameter", &BlockHandle::getParameter)
      .function("setNormPlacement", &BlockHandle::setNormPlacement);
  class_<AttentionHandle>("MultiHeadAttention")
      .constructor<val, double>()
      .function("forward", &AttentionHandle::forward)
      .function("parameters", &AttentionHandle::parameters)
      .function("numParameters", &AttentionHandle::numParameters)
      .function("setParameter", &AttentionHandle::setParameter)
      .function("getParameter", &AttentionHandle::getParameter);
  class_<FeedForwardHandle>("FeedForward")
      .constructor<int, int, std::string, double>()
      .function("forward", &FeedForwardHandle::forward)
      .function("parameters", &FeedForwardHandle::parameters)
      .function("numParameters", &FeedForwardHandle::numParameters)
      .function("setParameter", &FeedForwardHandle::setParameter)
      .function("getParameter", &FeedForwardHandle::getParameter);
  function("layerNorm", &layerNorm);
  function("activation", &activation);
  function("activationDerivative", &activationDerivative);
  function("countParameters", &countParameters);
  function("memoryStats", &memoryStats);
  function("feedForwardCosts", &feedForwardCosts);
  function("checkModelConfig", &checkModelConfig);
  function("topCandidates", &topCandidates);
  function("blockParameters", &blockParameters);
  function("buildInfo", &buildInfo);
}
