// embind bindings of the Blockscope core's components and free functions: LayerNorm, activations, the
// feed-forward network, multi-head attention and one transformer block, with their costs. Marshalling only:
// configs are parsed by the core (BlockConfig::from_json, ...). Arrays returned to JS are zero-copy views into
// wasm memory, valid only until the next call into the module (an allocation may grow memory and detach
// them): web/runtime/blockscope.js copies them before handing them out. No binding throws into JS: a C++ exception
// becomes a recorded error that web/runtime/wasm-module.js throws as a JS Error after the call returned (marshal.hpp),
// and the module stays usable. Handles must be .delete()d; web/runtime/blockscope.js wraps them.
// The model side (GPT, tokenizers, generation) is model_bindings.cpp; training is training_bindings.cpp.
#include <malloc.h>

#include "blockscope/activation.hpp"
#include "blockscope/feed_forward.hpp"
#include "blockscope/layer_norm.hpp"
#include "blockscope/mistakes.hpp"
#include "blockscope/multi_head_attention.hpp"
#include "blockscope/transformer_block.hpp"
#include "marshal.hpp"

namespace blockscope::wasm {

namespace {

// Checks a flat (B, T, d) input from JS against its sizes, naming `what` and the width `d_name`.
Tensor batch_input(const val& x, double B_, double T_, int64_t d, const char* what, const char* d_name) {
  const int64_t B = integer_of(B_, "B", 0, INT32_MAX), T = integer_of(T_, "T", 0, INT32_MAX);
  require(B > 0 && T > 0, "B and T must be positive, got B=", B, " T=", T);
  std::vector<float> in = floats_from(x, what);
  require(static_cast<int64_t>(in.size()) == B * T * d, what, " needs B x T x ", d_name, " = ", B, " x ", T,
          " x ", d, " = ", B * T * d, " values, got ", in.size());
  return Tensor({B, T, d}, std::move(in));
}

class AttentionHandle {
 public:
  AttentionHandle(const std::string& config, double seed)
      : att_([&] {
          return MultiHeadAttention(AttentionConfig::from_json(json_from(config, "attention config")), seed_of(seed));
        }()) {}

  // x (B, T, d_in) -> {output (B, T, d_out), weights (B, NH, T, T)}
  val forward(val x, double B, double T) {
    return guarded([&] {
      out_ = att_.forward(batch_input(x, B, T, att_.config().d_in, "attention input", "d_in"));
      val o = val::object();
      o.set("output", view(out_.data));
      o.set("weights", view(att_.last_attn_weights().data));
      return o;
    });
  }
  ParamArena& arena() { return *att_.own_params(); }

 private:
  MultiHeadAttention att_;
  Tensor out_;
};

class BlockHandle {
 public:
  BlockHandle(const std::string& config, double seed)
      : block_([&] {
          return TransformerBlock(BlockConfig::from_json(json_from(config, "block config")), seed_of(seed));
        }()) {}

  // x (B, T, emb_dim) -> {output, inspection}
  val forward(val x, double B, double T) {
    return guarded([&] {
      out_ = block_.forward(batch_input(x, B, T, block_.config().emb_dim, "block input", "emb_dim"), &insp_);
      val o = val::object();
      o.set("output", view(out_.data));
      o.set("inspection", block_inspection(insp_));
      return o;
    });
  }
  val config() const {
    return guarded([&] { return json_to_js(block_.config().to_json()); });
  }
  ParamArena& arena() { return *block_.own_params(); }
  void setNormPlacement(const std::string& p) {
    guarded([&] { block_.set_norm_placement(parse_norm_placement(p)); });
  }

 private:
  TransformerBlock block_;
  Tensor out_;
  BlockInspection insp_;
};

class FeedForwardHandle {
 public:
  FeedForwardHandle(double emb_dim, double hidden_dim, const std::string& activation, double seed)
      : ff_([&] {
          return FeedForward(FeedForwardConfig{integer_of(emb_dim, "embDim", 0, INT32_MAX),
                                               integer_of(hidden_dim, "hiddenDim", 0, INT32_MAX),
                                               parse_activation(activation.c_str()), true},
                             seed_of(seed));
        }()) {}

  // x (rows, emb_dim) -> {output, hiddenPre, hiddenPost}
  val forward(val x) {
    return guarded([&] {
      std::vector<float> in = floats_from(x, "feed-forward input");
      const int64_t C = ff_.config().emb_dim;
      require(!in.empty() && static_cast<int64_t>(in.size()) % C == 0, "feed-forward input of length ", in.size(),
              " is not a whole number of rows of length emb_dim = ", C);
      out_ = ff_.forward(Tensor({static_cast<int64_t>(in.size()) / C, C}, std::move(in)));
      val o = val::object();
      o.set("output", view(out_.data));
      o.set("hiddenPre", view(ff_.last_hidden_pre().data));
      o.set("hiddenPost", view(ff_.last_hidden_post().data));
      return o;
    });
  }
  ParamArena& arena() { return *ff_.own_params(); }

 private:
  FeedForward ff_;
  Tensor out_;
};

// Storage behind the views the free functions return (valid until the next call).
LayerNormTrace g_trace;
std::vector<float> g_out;

val layerNorm(val x, val gamma, val beta, double eps) {
  return guarded([&] {
    const auto xs = floats_from(x, "LayerNorm input"), g = floats_from(gamma, "gamma"), b = floats_from(beta, "beta");
    g_trace = layer_norm_trace(xs, g, b, static_cast<float>(eps));
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

// LayerNorm as one of the learners' mistakes computes it (mistakes.hpp; "correct" is LayerNorm itself).
val layerNormVariant(const std::string& variant, val x, val gamma, val beta, double eps) {
  return guarded([&] {
    const LayerNormVariant v = parse_layer_norm_variant(variant);
    const auto xs = floats_from(x, "LayerNorm input"), g = floats_from(gamma, "gamma"), b = floats_from(beta, "beta");
    g_out = layer_norm_variant(v, xs, g, b, static_cast<float>(eps));
    return view(g_out);
  });
}

// The variant ids, correct first: the order a check tries them in.
val layerNormVariantIds() {
  val ids = val::array();
  for (LayerNormVariant v : layer_norm_variants()) ids.call<void>("push", std::string(layer_norm_variant_id(v)));
  return ids;
}

val activation(const std::string& kind, val x) {
  return guarded([&] {
    const auto xs = floats_from(x, "activation input");
    g_out = activate(parse_activation(kind.c_str()), Tensor({static_cast<int64_t>(xs.size())}, xs)).data;
    return view(g_out);
  });
}

val activationDerivative(const std::string& kind, val x) {
  return guarded([&] {
    const auto xs = floats_from(x, "activation input");
    g_out = activation_derivative(parse_activation(kind.c_str()), Tensor({static_cast<int64_t>(xs.size())}, xs)).data;
    return view(g_out);
  });
}

// Sizes and costs of a feed-forward network (the FFN explorer's numbers): parameters, FLOPs per token and
// hidden activations for a (B, n) batch.
val feedForwardCosts(double emb_dim, double hidden_dim, double B, double n) {
  return guarded([&] {
    const FeedForwardConfig cfg{integer_of(emb_dim, "embDim", 0, INT32_MAX),
                                integer_of(hidden_dim, "hiddenDim", 0, INT32_MAX), Activation::GeluTanh, true};
    val o = val::object();
    o.set("parameters", static_cast<double>(FeedForward::num_params(cfg)));
    o.set("flopsPerToken", static_cast<double>(FeedForward::flops_per_token(cfg)));
    o.set("hiddenEntries", static_cast<double>(FeedForward::hidden_entries(cfg, integer_of(B, "batch", 0, INT32_MAX),
                                                                           integer_of(n, "tokens", 0, INT32_MAX))));
    return o;
  });
}

// Parameter counts of one transformer block by part: attention, feedForward, norms, total.
val blockParameters(const std::string& config) {
  return guarded([&] {
    const BlockConfig b = BlockConfig::from_json(json_from(config, "block config"));
    val o = val::object();
    o.set("attention", static_cast<double>(MultiHeadAttention::num_params(b.attention())));
    o.set("feedForward", static_cast<double>(FeedForward::num_params(b.feed_forward())));
    o.set("norms", static_cast<double>(2 * LayerNorm::num_params(b.emb_dim)));
    o.set("total", static_cast<double>(TransformerBlock::num_params(b)));
    return o;
  });
}

// Heap diagnostics for leak tests: bytes currently allocated by malloc, the wasm memory size, and the stack
// pointer (the address of a local here: the same at every call unless the stack leaks).
val memoryStats() {
  const struct mallinfo mi = mallinfo();
  volatile char probe = 0;
  val o = val::object();
  o.set("stackPointer", static_cast<double>(reinterpret_cast<uintptr_t>(&probe)));
  o.set("allocatedBytes", static_cast<double>(mi.uordblks));
  o.set("heapBytes", static_cast<double>(__builtin_wasm_memory_size(0) * 65536.0));
  return o;
}

val buildInfo() {
  val o = val::object();
  const std::string isa = kernel_isa();
  o.set("flavour", std::string(isa == "simd128" ? "simd" : "baseline"));  // the .wasm file's name
  o.set("isa", isa);
  o.set("version", std::string(BLOCKSCOPE_VERSION));  // package.json's, via CMake
  return o;
}

}  // namespace
}  // namespace blockscope::wasm

EMSCRIPTEN_BINDINGS(blockscope) {
  using namespace emscripten;
  using namespace blockscope::wasm;
  auto block = bind_class<BlockHandle>("Block")
                   .constructor(&make_handle<BlockHandle, std::string, double>, allow_raw_pointers())
                   .function("forward", &BlockHandle::forward)
                   .function("config", &BlockHandle::config)
                   .function("setNormPlacement", &BlockHandle::setNormPlacement);
  with_parameters(block);
  auto att = bind_class<AttentionHandle>("MultiHeadAttention")
                 .constructor(&make_handle<AttentionHandle, std::string, double>, allow_raw_pointers())
                 .function("forward", &AttentionHandle::forward);
  with_parameters(att);
  auto ff = bind_class<FeedForwardHandle>("FeedForward")
                .constructor(&make_handle<FeedForwardHandle, double, double, std::string, double>,
                             allow_raw_pointers())
                .function("forward", &FeedForwardHandle::forward);
  with_parameters(ff);
  bind_function("layerNorm", &layerNorm);
  bind_function("activation", &activation);
  bind_function("layerNormVariant", &layerNormVariant);
  bind_function("layerNormVariantIds", &layerNormVariantIds);
  bind_function("activationDerivative", &activationDerivative);
  bind_function("memoryStats", &memoryStats);
  bind_function("feedForwardCosts", &feedForwardCosts);
  bind_function("blockParameters", &blockParameters);
  bind_function("buildInfo", &buildInfo);
}
