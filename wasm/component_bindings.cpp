// embind bindings of the Blockscope core's components: the feed-forward network, multi-head attention and one
// transformer block, with their costs and the learner mistakes they can show. Full module only (wasm/CMakeLists.txt).
// Marshalling only:
// configs are parsed by the core (BlockConfig::from_json, ...). Arrays returned to JS are zero-copy views into
// wasm memory, valid only until the next call into the module (an allocation may grow memory and detach
// them): web/runtime/blockscope.js copies them before handing them out. No binding throws into JS: a C++ exception
// becomes a recorded error that web/runtime/wasm-module.js throws as a JS Error after the call returned (marshal.hpp),
// and the module stays usable. Handles must be .delete()d; web/runtime/blockscope.js wraps them.
// Activations and LayerNorm on plain arrays are elementwise_bindings.cpp; the model side (GPT, tokenizers,
// generation) model_bindings.cpp; training training_bindings.cpp; the residual-flow network residual_mlp_bindings.cpp;
// memory and build facts runtime_bindings.cpp.
#include "blockscope/feed_forward.hpp"
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
  // The output as a learner's attention with mistake `id` computes it (mistakes.hpp), and the ids that apply.
  val mistake(const std::string& id, val x, double B, double T) {
    return guarded([&] {
      const Tensor in = batch_input(x, B, T, att_.config().d_in, "attention input", "d_in");
      mistake_out_ = attention_mistake(att_, parse_mistake(id), in.data, in.shape[0], in.shape[1]);
      return view(mistake_out_);
    });
  }
  val mistakes() const {
    return guarded([&] { return mistake_ids(attention_mistakes(att_)); });
  }
  ParamArena& arena() { return *att_.own_params(); }

 private:
  MultiHeadAttention att_;
  Tensor out_;
  std::vector<float> mistake_out_;
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
  // Every step's values with mistake `id` where it fits (confined to `at_step` unless empty): [{id, values}].
  val mistake(const std::string& id, val x, double B, double T, const std::string& at_step) {
    return guarded([&] {
      const Tensor in = batch_input(x, B, T, block_.config().emb_dim, "block input", "emb_dim");
      steps_ = block_mistake(block_, parse_mistake(id), in.data, in.shape[0], in.shape[1], at_step);
      val out = val::array();
      for (const BlockStep& s : steps_) {
        val o = val::object();
        o.set("id", s.id);
        o.set("values", view(s.values));
        out.call<void>("push", o);
      }
      return out;
    });
  }
  val mistakes(double T) const {
    return guarded([&] { return mistake_ids(block_mistakes(block_, integer_of(T, "T", 0, INT32_MAX))); });
  }

 private:
  TransformerBlock block_;
  Tensor out_;
  BlockInspection insp_;
  std::vector<BlockStep> steps_;
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
  // x (B, T, emb_dim) as a learner's FFN with mistake `id` computes it, and the ids that apply at length T.
  val mistake(const std::string& id, val x, double B, double T) {
    return guarded([&] {
      const Tensor in = batch_input(x, B, T, ff_.config().emb_dim, "feed-forward input", "emb_dim");
      mistake_out_ = feed_forward_mistake(ff_, parse_mistake(id), in.data, in.shape[0], in.shape[1]);
      return view(mistake_out_);
    });
  }
  val mistakes(double T) const {
    return guarded([&] { return mistake_ids(feed_forward_mistakes(ff_, integer_of(T, "T", 0, INT32_MAX))); });
  }
  ParamArena& arena() { return *ff_.own_params(); }

 private:
  FeedForward ff_;
  Tensor out_;
  std::vector<float> mistake_out_;
};

// Sizes and costs of a feed-forward network (the FFN explorer's numbers): parameters, FLOPs per token and
// hidden activations for a (B, n) batch.
val feedForwardCosts(double emb_dim, double hidden_dim, double B, double n, bool bias) {
  return guarded([&] {
    const FeedForwardConfig cfg{integer_of(emb_dim, "embDim", 0, INT32_MAX),
                                integer_of(hidden_dim, "hiddenDim", 0, INT32_MAX), Activation::GeluTanh, bias};
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

// FLOPs per token of one block's sublayers for a sequence of n tokens: feedForward, attentionProjections,
// attentionScores, and ffnDominatesBelow (the sequence length below which the FFN costs more than attention).
val blockFlops(const std::string& config, double n) {
  return guarded([&] {
    const BlockConfig b = BlockConfig::from_json(json_from(config, "block config"));
    const int64_t tokens = integer_of(n, "tokens", 0, INT32_MAX);
    val o = val::object();
    o.set("feedForward", static_cast<double>(FeedForward::flops_per_token(b.feed_forward())));
    o.set("attentionProjections", static_cast<double>(MultiHeadAttention::projection_flops_per_token(b.attention())));
    o.set("attentionScores", static_cast<double>(MultiHeadAttention::score_flops_per_token(b.attention(), tokens)));
    o.set("ffnDominatesBelow", static_cast<double>(b.ffn_dominates_below_tokens()));
    return o;
  });
}

}  // namespace
}  // namespace blockscope::wasm

EMSCRIPTEN_BINDINGS(blockscope_components) {
  using namespace emscripten;
  using namespace blockscope::wasm;
  auto block = bind_class<BlockHandle>("Block")
                   .constructor(&make_handle<BlockHandle, std::string, double>, allow_raw_pointers())
                   .function("forward", &BlockHandle::forward)
                   .function("config", &BlockHandle::config)
                   .function("setNormPlacement", &BlockHandle::setNormPlacement)
                   .function("mistake", &BlockHandle::mistake)
                   .function("mistakes", &BlockHandle::mistakes);
  with_parameters(block);
  auto att = bind_class<AttentionHandle>("MultiHeadAttention")
                 .constructor(&make_handle<AttentionHandle, std::string, double>, allow_raw_pointers())
                 .function("forward", &AttentionHandle::forward)
                 .function("mistake", &AttentionHandle::mistake)
                 .function("mistakes", &AttentionHandle::mistakes);
  with_parameters(att);
  auto ff = bind_class<FeedForwardHandle>("FeedForward")
                .constructor(&make_handle<FeedForwardHandle, double, double, std::string, double>,
                             allow_raw_pointers())
                .function("forward", &FeedForwardHandle::forward)
                .function("mistake", &FeedForwardHandle::mistake)
                .function("mistakes", &FeedForwardHandle::mistakes);
  with_parameters(ff);
  bind_function("feedForwardCosts", &feedForwardCosts);
  bind_function("blockParameters", &blockParameters);
  bind_function("blockFlops", &blockFlops);
}
