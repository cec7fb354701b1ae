// The handle classes that more than one bindings file needs: bytes JS fills in place, and a GPT model (the
// training bindings build trainers on it). Marshalling only.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "blockscope/checkpoint.hpp"
#include "blockscope/generation.hpp"
#include "blockscope/gpt_model.hpp"
#include "blockscope/interpret.hpp"
#include "marshal.hpp"

namespace blockscope::wasm {

// Bytes in wasm memory that JS fills in place (e.g. a model file streamed from fetch), so a large file is
// never held twice on the JS side. view() is valid until the next allocation in the module.
class ByteBuffer {
 public:
  explicit ByteBuffer(double size) : bytes_([&] {
    require(size >= 0 && size <= 4.0e9 && size == static_cast<double>(static_cast<size_t>(size)),
                "buffer size must be a whole number of bytes below 4 GB, got ", size);
    return std::vector<uint8_t>(static_cast<size_t>(size));
  }()) {}
  val view() { return val(emscripten::typed_memory_view(bytes_.size(), bytes_.data())); }
  double size() const { return static_cast<double>(bytes_.size()); }
  std::span<const uint8_t> bytes() const { return bytes_; }

 private:
  std::vector<uint8_t> bytes_;
};

// A checkpoint streamed in from JS: config.json text and the byte size of model.safetensors first, then its
// bytes in order, each piece copied by JS into a small reusable ByteBuffer and handed over with write(buffer,
// n). The file is never whole in wasm memory; the model is built by `new GPT(loader)` once every byte is in.
class ModelLoaderHandle {
 public:
  // options: loadModel's {maxParameterBytes, weights} as JSON (LoadOptions::from_json).
  ModelLoaderHandle(const std::string& config_json, double file_size, const std::string& options)
      : loader_([&] {
          const LoadOptions opts = LoadOptions::from_json(json_from(options, "load options"));
          const GPTConfig cfg = read_config(config_json);  // the loader checks it against the parameter budget
          return ModelStreamLoader(cfg, static_cast<uint64_t>(integer_of(file_size, "file size", 0, INT64_C(1) << 53)),
                                   opts);
        }()) {}
  // The first n bytes of `buffer` are the file's next bytes.
  void write(const ByteBuffer& buffer, double n) {
    guarded([&] {
      const auto bytes = buffer.bytes();
      loader_.write(bytes.first(static_cast<size_t>(integer_of(n, "byte count", 0, static_cast<int64_t>(bytes.size())))));
    });
  }
  double received() const { return static_cast<double>(loader_.received()); }
  ModelStreamLoader& loader() { return loader_; }

 private:
  ModelStreamLoader loader_;
};

class GPTHandle {
 public:
  GPTHandle(const std::string& config, double seed)
      : model_([&] { return GPTModel(GPTConfig::from_json(json_from(config, "GPT config")), seed_of(seed)); }()) {}
  val forward(val ids, double B, double T, bool inspect) {
    return guarded([&] {
      const std::vector<int32_t> v = ids_from(ids);
      logits_ = model_.forward(v, integer_of(B, "B", 0, INT32_MAX), integer_of(T, "T", 0, INT32_MAX), inspect);
      return view(logits_.data);
    });
  }

  // How many leading tokens of an n-token prompt this model does not read (the core's context_start: 0 when it
  // fits, the excess with overflow "crop", an error with "error").
  double contextStart(double n, const std::string& overflow) const {
    return guarded([&] {
      return static_cast<double>(context_start(integer_of(n, "token count", 0, INT32_MAX),
                                               model_.config().context_length, parse_context_overflow(overflow)));
    });
  }

  val inspection() const;
  // The logit lens of ids (batch 1): (n_layers + 1, T, V) flat (interpret.hpp).
  val logitLens(val ids) {
    return guarded([&] {
      lens_ = logit_lens(model_, ids_from(ids));
      return view(lens_.data);
    });
  }
  // softmax(...)[target] of every row of the last logitLens: (n_layers + 1, T).
  val lensProbabilities(double target) {
    return guarded([&] {
      lens_probs_ = token_probabilities(lens_, integer_of(target, "token id", INT32_MIN, INT32_MAX));
      return view(lens_probs_);
    });
  }
  // Ablates heads ("1.0,3.2": block.head) with mode "zero" | "mean" in every later pass; "" restores the model.
  void setHeadAblation(const std::string& heads, const std::string& mode) {
    guarded([&] { set_head_ablation(model_, parse_heads(heads, model_.config()), parse_head_ablation(mode)); });
  }
  // Attribution of the target's logit (or log-probability) at the last position to each input position (T).
  val attribute(val ids, double target, const std::string& options) {
    return guarded([&] {
      attribution_ = blockscope::attribute(model_, ids_from(ids), integer_of(target, "target", INT32_MIN, INT32_MAX),
                                           AttributionOptions::from_json(json_from(options, "attribution options")));
      return view(attribution_);
    });
  }
  // The model as a checkpoint in the layout (and tensor names) it was loaded from, the book's for a model
  // made from a config, or `layout` ("book" / "huggingface") if given: {config: text, weights: view}.
  val save(const std::string& layout);
  val config() const {
    return guarded([&] { return json_to_js(model_.config().to_json()); });
  }
  // "f32" or "int8": how the model stores its matrices (int8: loaded with {weights: 'int8'}, inference-only).
  std::string weightFormat() const { return weight_format_name(model_.weight_format()); }
  // Bytes the parameters occupy (int8 matrices: codes + scales).
  double parameterBytes() const { return static_cast<double>(model_.stored_parameter_bytes()); }

  // The model a ModelLoaderHandle streamed in (Error unless every byte has arrived).
  explicit GPTHandle(ModelLoaderHandle& loader)
      : model_(loader.loader().finish()), naming_(loader.loader().naming()) {}

  GPTModel& model() { return model_; }
  ParamArena& arena() { return model_.params(); }
  void setNormPlacement(const std::string& p) {
    guarded([&] { model_.set_norm_placement(parse_norm_placement(p)); });
  }

 private:
  GPTModel model_;
  CheckpointNaming naming_;
  Tensor lens_;
  std::vector<float> attribution_, lens_probs_;
  Tensor logits_;
  std::vector<uint8_t> saved_;
};

}  // namespace blockscope::wasm
