// embind bindings of the model side of the core: checkpoints and GPT models (forward pass, inspection,
// parameters), tokenizers and KV-cache generation. Marshalling only; see marshal.hpp for the conventions.
#include <cmath>
#include <memory>

#include "blockscope/generation.hpp"
#include "blockscope/tokenizer.hpp"
#include "blockscope/tokenizer_files.hpp"
#include "handles.hpp"

namespace blockscope::wasm {

val GPTHandle::inspection() const {
    return guarded([&] {
      const auto& insp = model_.last_inspection();
      if (insp.empty()) throw Error("no inspection recorded: call forward(ids, B, T, true) first");
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

val GPTHandle::save(const std::string& layout) {
  return guarded([&] {
    CheckpointNaming naming = naming_;
    if (!layout.empty()) naming = {parse_layout(layout, "layout"), true, false};
    const std::string config = config_json(model_, naming.layout);
    saved_ = save_safetensors(model_.config(), model_.params(), naming);
    val o = val::object();
    o.set("config", config);
    o.set("layout", std::string(layout_name(naming.layout)));
    o.set("weights", val(emscripten::typed_memory_view(saved_.size(), saved_.data())));
    return o;
  });
}

namespace {

// A tokenizer of the core's make_tokenizer: kind "gpt2" (vocab.json/encoder.json text + merges.txt/vocab.bpe text),
// "symbols" (tokens.json text), "bytes" or "bytes+eot"; `source` names the files in the core's errors.
class TokenizerHandle {
 public:
  TokenizerHandle(const std::string& kind, const std::string& first, const std::string& second, const std::string& source)
      : tok_(make_tokenizer(kind, first, second, source)) {}
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
  val tokenBytes(double id) {
    return guarded([&] {
      bytes_ = tok_->token_text(static_cast<int32_t>(integer_of(id, "token id", INT32_MIN, INT32_MAX)));
      return val(emscripten::typed_memory_view(bytes_.size(), reinterpret_cast<const uint8_t*>(bytes_.data())));
    });
  }
  int vocabSize() const { return tok_->vocab_size(); }
  val eotId() const { return tok_->eot_id() ? val(*tok_->eot_id()) : val::null(); }
  std::string name() const { return guarded([&] { return tok_->name(); }); }
  std::string separator() const { return guarded([&] { return std::string(tok_->separator()); }); }

 private:
  std::unique_ptr<Tokenizer> tok_;
  std::vector<int32_t> ids_;
  std::string bytes_;
};


// A running generation over a GPT: one token per next(). Must be deleted before its GPT.
class GeneratorHandle {
 public:
  GeneratorHandle(GPTHandle& gpt, val ids, const std::string& options)
      : gen_([&] {
          return Generator(gpt.model(), ids_from(ids),
                           GenerateOptions::from_json(json_from(options, "generation options")));
        }()) {}
  // The next token id, or -1 once finished.
  int next() {
    return guarded([&] {
      const auto t = gen_.next();
      return t ? *t : -1;
    });
  }
  std::string stopReason() const { return guarded([&] { return std::string(gen_.stop_reason()); }); }
  bool sliding() const { return gen_.sliding(); }
  val lastLogits() const { return view(gen_.last_logits()); }

 private:
  Generator gen_;
};

double countParameters(const std::string& config) {
  return guarded([&] {
    return static_cast<double>(GPTModel::count_parameters(GPTConfig::from_json(json_from(config, "GPT config"))));
  });
}

// Reads a config.json (book or Hugging Face keys) and checks its float32 weights against the load options'
// limit (loadOptions' JSON) before anything is allocated: {config (book keys), parameters, weightBytes,
// maxFileBytes (the largest model.safetensors such a config can have)}.
val checkModelConfig(const std::string& config_json, const std::string& options) {
  return guarded([&] {
    const GPTConfig cfg = read_config(config_json);
    check_parameter_budget(cfg, LoadOptions::from_json(json_from(options, "load options")));
    const auto n = GPTModel::count_parameters(cfg);
    val o = val::object();
    o.set("config", json_to_js(cfg.to_json()));
    o.set("parameters", static_cast<double>(n));
    o.set("weightBytes", 4.0 * static_cast<double>(n));
    o.set("maxFileBytes", static_cast<double>(max_safetensors_bytes(cfg)));  // what a download may send
    return o;
  });
}

// loadModel's options {maxParameterBytes, weights} checked, with the core's defaults filled in, as JSON text.
std::string loadOptions(const std::string& options) {
  return guarded([&] { return LoadOptions::from_json(json_from(options, "load options")).to_json().dump(); });
}

// The tokenizer kind a vocabulary gets by default ("gpt2", "bytes", "bytes+eot"), or null if none fits.
val defaultTokenizerKind(double vocab_size) {
  return guarded([&] {
    const char* kind = default_tokenizer_kind(integer_of(vocab_size, "vocab_size", 0, INT64_C(1) << 53));
    return kind ? val(std::string(kind)) : val::null();
  });
}

// The tokenizer files a model of vocab_size ids may have, in the order they are looked for (the core's rule,
// tokenizer_files.hpp): [{kind, files: [name, ...]}].
val tokenizerLayouts(double vocab_size) {
  return guarded([&] {
    val out = val::array();
    for (const TokenizerLayout& l : model_tokenizer_layouts(integer_of(vocab_size, "vocab_size", 0, INT64_C(1) << 53))) {
      val files = val::array();
      files.call<void>("push", std::string(l.first));
      if (l.second) files.call<void>("push", std::string(l.second));
      val o = val::object();
      o.set("kind", std::string(l.kind));
      o.set("files", files);
      out.call<void>("push", o);
    }
    return out;
  });
}

// The k most likely next tokens of one row of logits: {ids, logits, probabilities} (softmax at `temperature`).
val topCandidates(val logits, double k, double temperature) {
  return guarded([&] {
    const std::vector<float> l = floats_from(logits, "logits");
    const auto c = top_candidates(l, integer_of(k, "k", 1, INT32_MAX), static_cast<float>(temperature));
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

}  // namespace

}  // namespace blockscope::wasm

EMSCRIPTEN_BINDINGS(blockscope_models) {
  using namespace emscripten;
  using namespace blockscope::wasm;
  bind_class<ByteBuffer>("ByteBuffer")
      .constructor(&make_handle<ByteBuffer, double>, allow_raw_pointers())
      .function("view", &ByteBuffer::view)
      .function("size", &ByteBuffer::size);
  bind_class<ModelLoaderHandle>("ModelLoader")
      .constructor(&make_handle<ModelLoaderHandle, std::string, double, std::string>, allow_raw_pointers())
      .function("write", &ModelLoaderHandle::write)
      .function("received", &ModelLoaderHandle::received);
  bind_class<TokenizerHandle>("Tokenizer")
      .constructor(&make_handle<TokenizerHandle, std::string, std::string, std::string, std::string>, allow_raw_pointers())
      .function("encode", &TokenizerHandle::encode)
      .function("decodeBytes", &TokenizerHandle::decodeBytes)
      .function("tokenBytes", &TokenizerHandle::tokenBytes)
      .function("vocabSize", &TokenizerHandle::vocabSize)
      .function("eotId", &TokenizerHandle::eotId)
      .function("name", &TokenizerHandle::name)
      .function("separator", &TokenizerHandle::separator);
  auto gpt = bind_class<GPTHandle>("GPT")
                 .constructor(&make_handle<GPTHandle, std::string, double>, allow_raw_pointers())
                 .constructor(&make_handle<GPTHandle, ModelLoaderHandle&>, allow_raw_pointers())
                 .function("forward", &GPTHandle::forward)
                 .function("contextStart", &GPTHandle::contextStart)
                 .function("inspection", &GPTHandle::inspection)
                 .function("logitLens", &GPTHandle::logitLens)
                 .function("lensProbabilities", &GPTHandle::lensProbabilities)
                 .function("setHeadAblation", &GPTHandle::setHeadAblation)
                 .function("attribute", &GPTHandle::attribute)
                 .function("config", &GPTHandle::config)
                 .function("setNormPlacement", &GPTHandle::setNormPlacement)
                 .function("save", &GPTHandle::save)
                 .function("weightFormat", &GPTHandle::weightFormat)
                 .function("parameterBytes", &GPTHandle::parameterBytes);
  with_parameters(gpt);
  bind_class<GeneratorHandle>("Generator")
      .constructor(&make_handle<GeneratorHandle, GPTHandle&, val, std::string>, allow_raw_pointers())
      .function("next", &GeneratorHandle::next)
      .function("stopReason", &GeneratorHandle::stopReason)
      .function("sliding", &GeneratorHandle::sliding)
      .function("lastLogits", &GeneratorHandle::lastLogits);
  bind_function("countParameters", &countParameters);
  bind_function("checkModelConfig", &checkModelConfig);
  bind_function("loadOptions", &loadOptions);
  bind_function("defaultTokenizerKind", &defaultTokenizerKind);
  bind_function("tokenizerLayouts", &tokenizerLayouts);
  bind_function("topCandidates", &topCandidates);
}
