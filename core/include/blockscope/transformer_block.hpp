// TransformerBlock (book ch. 4.5): attention and feed-forward sublayers, each wrapped in a LayerNorm and
// a shortcut connection. Pre-norm (GPT-2, default): x + drop(att(norm1(x))), then x + drop(ff(norm2(x))).
// Post-norm (original Transformer): norm1(x + drop(att(x))), then norm2(x + drop(ff(x))).
// The wiring is one list of steps per placement (transformer_block.cpp): the forward pass, the cached forward and
// inspection walk it in order, the backward pass in reverse, every intermediate living in a BlockActs.
// EncoderBlock is the lesson's non-causal, bias-free-attention, exact-GELU pre-norm variant.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <memory>
#include <string>
#include <vector>

#include "blockscope/checked.hpp"
#include "blockscope/feed_forward.hpp"
#include "blockscope/inspection.hpp"
#include "blockscope/layer_norm.hpp"
#include "blockscope/multi_head_attention.hpp"
#include "blockscope/param_arena.hpp"
#include "blockscope/rng.hpp"
#include "blockscope/tensor.hpp"

namespace blockscope {

enum class NormPlacement { Pre, Post };
const char* norm_placement_name(NormPlacement p);  // "pre" / "post"
NormPlacement parse_norm_placement(const std::string& name);

struct BlockConfig {
  int64_t emb_dim = 0;
  int64_t context_length = 0;
  int64_t n_heads = 1;
  double drop_rate = 0.0;
  bool qkv_bias = false;
  NormPlacement norm = NormPlacement::Pre;
  // Variations the lesson's encoder block needs; the defaults are the book's GPT block.
  int64_t ffn_hidden = 0;  // 0 means 4 * emb_dim
  Activation activation = Activation::GeluTanh;
  bool causal = true;
  bool attn_out_bias = true;
  bool ffn_bias = true;  // false: both of the FFN's Linear layers without bias (a cost-view toggle)
  float ln_eps = 1e-5f;
  // false removes both shortcut connections (x + sublayer(x) becomes sublayer(x)): the lesson's "without
  // residuals" experiment. Not a model anyone would ship; default true.
  bool residual = true;

  int64_t hidden_dim() const { return ffn_hidden > 0 ? ffn_hidden : checked_mul(4, emb_dim, "4 x emb_dim"); }
  AttentionConfig attention() const;
  FeedForwardConfig feed_forward() const;
  // The sequence length below which the FFN costs more FLOPs per token than all of attention (projections plus the
  // attention matrix products): n < (ffn - projections) / 4d, i.e. n < 2d for the standard 4d-wide FFN (lesson
  // LM4-T3: "the FFN is the main cost for sequences shorter than about 2d"). 0 if attention always costs more.
  int64_t ffn_dominates_below_tokens() const;
  void validate() const;  // sizes positive and within SizeLimits (memory_budget.hpp)
  // The book's block keys ("emb_dim", "context_length", "n_heads", "drop_rate", "qkv_bias") plus "norm",
  // "ffn_hidden", "activation", "causal", "attn_out_bias", "ln_eps"; strict, validated (config_json.cpp).
  static BlockConfig from_json(const nlohmann::json& j);
  nlohmann::json to_json() const;
};

// Every intermediate of one block's forward pass over (B, T), N = B T rows of C = emb_dim (H = hidden width),
// as pointers into memory the caller owns (a training run state, or the block's own workspace).
//   pre-norm:  ln1_out = norm1(x); att_out = att(ln1_out); res1 = x + drop1(att_out);
//              ln2_out = norm2(res1); ff_out = ff(ln2_out); res2 = res1 + drop2(ff_out); out = res2
//   post-norm: att_out = att(x); res1 = x + drop1(att_out); ln1_out = norm1(res1);
//              ff_out = ff(ln1_out); res2 = ln1_out + drop2(ff_out); ln2_out = norm2(res2); out = ln2_out
struct BlockActs {
  float* ln1_mean = nullptr;    // (N)
  float* ln1_rstd = nullptr;    // (N)
  float* ln1_out = nullptr;     // (N, C)
  AttentionActs att;            // q, k, v, ctx (N, C); att and att_mask (B, NH, T, T)
  float* att_out = nullptr;     // (N, C) out_proj's output
  float* drop1_mask = nullptr;  // (N, C) dropout scale after attention, or null without dropout
  float* res1 = nullptr;        // (N, C)
  float* ln2_mean = nullptr;    // (N)
  float* ln2_rstd = nullptr;    // (N)
  float* ln2_out = nullptr;     // (N, C)
  float* fc_pre = nullptr;      // (N, H) first Linear's output
  float* fc_post = nullptr;     // (N, H) after the activation
  float* ff_out = nullptr;      // (N, C)
  float* drop2_mask = nullptr;  // (N, C) or null
  float* res2 = nullptr;        // (N, C)
  const float* out = nullptr;   // the block's output: res2 (pre-norm) or ln2_out (post-norm)

  // Floats needed for (B, T) of `cfg`; with `dropout`, also the three masks. Checked: throws Error on overflow.
  static int64_t size(const BlockConfig& cfg, int64_t B, int64_t T, bool dropout);
  // Lays the buffers out in `mem` (size() floats).
  static BlockActs carve(float* mem, const BlockConfig& cfg, int64_t B, int64_t T, bool dropout);
  // Draws fresh dropout masks with keep probability 1 - p: each entry 0 or 1/(1-p), as nn.Dropout.
  void draw_dropout(Rng& rng, float p, int64_t B, int64_t T, const BlockConfig& cfg) const;
};

class TransformerBlock {
 public:
  explicit TransformerBlock(const BlockConfig& cfg, uint64_t seed = 123);
  // Parameters "<prefix>att.*", "<prefix>ff.layers.*", "<prefix>norm1.*", "<prefix>norm2.*" in `arena`.
  TransformerBlock(ParamArena& arena, const std::string& prefix, const BlockConfig& cfg);
  static int64_t num_params(const BlockConfig& cfg);

  void init(Rng& rng);
  // x (B, T, emb_dim) -> same shape; fills `inspect` if non-null.
  Tensor forward(const Tensor& x, BlockInspection* inspect = nullptr);
  // Raw form: out, inp (B, T, emb_dim); out must not alias inp. Uses the block's own workspace.
  void forward(float* out, const float* inp, int64_t B, int64_t T, BlockInspection* inspect = nullptr);
  // The forward pass proper: every intermediate into `a` (dropout where a's masks are set).
  void forward(const BlockActs& a, const float* inp, int64_t B, int64_t T);
  // Backward of forward(a, inp, B, T): dinp (B, T, emb_dim) accumulates (null: skipped); every weight
  // gradient accumulates through `grads`.
  void backward(float* dinp, const float* dout, const float* inp, const BlockActs& a, int64_t B, int64_t T,
                const GradMap& grads);
  // The inspection hook: the widgets' statistics of one forward pass, read from its activations.
  void inspect(const BlockActs& a, const float* inp, int64_t B, int64_t T, BlockInspection& out) const;
  // How many steps inspect() records (the input, each step, and the dropout before each addition): the same
  // for both placements.
  static int64_t inspected_steps();
  // Incremental form for KV-cache decoding (B = 1): T new tokens after the kv.pos cached ones.
  void forward_cached(float* out, const float* inp, int64_t T, const KVSlot& kv);
  // The same on caller-owned workspace: a = BlockActs::carve(.., 1, T, false), att_w (n_heads, T, kv.pos + T).
  // A model shares one workspace between all its blocks (they run one after another). With `rows` in [1, T)
  // only the last `rows` positions' outputs are computed into `out` (rows, emb_dim), every key and value still
  // cached: after the attention each position depends on its own row only, so the rest is work for nothing
  // when a model's last block feeds only the last position's logits.
  void forward_cached(float* out, const float* inp, int64_t T, const KVSlot& kv, const BlockActs& a,
                      float* att_w, int64_t rows = 0);

  const BlockConfig& config() const { return cfg_; }
  NormPlacement norm_placement() const { return cfg_.norm; }
  void set_norm_placement(NormPlacement p) { cfg_.norm = p; }  // same weights, other wiring
  ParamArena* own_params() { return own_.get(); }
  MultiHeadAttention& att() { return att_; }
  FeedForward& ff() { return ff_; }
  LayerNorm& norm1() { return norm1_; }
  LayerNorm& norm2() { return norm2_; }
  const MultiHeadAttention& att() const { return att_; }
  const FeedForward& ff() const { return ff_; }
  const LayerNorm& norm1() const { return norm1_; }
  const LayerNorm& norm2() const { return norm2_; }

 private:
  const BlockActs& workspace(int64_t B, int64_t T);
  // The cached forward's extras: the KV cache, its attention weights and the caller's output.
  struct Cached {
    const KVSlot& kv;
    float* att_w;
    float* out;
    int64_t rows;  // the trailing positions computed after the attention (T: all)
  };
  void run(const BlockActs& a, const float* inp, int64_t B, int64_t T, const Cached* cached);

  BlockConfig cfg_;
  std::unique_ptr<ParamArena> own_;
  MultiHeadAttention att_;
  FeedForward ff_;
  LayerNorm norm1_, norm2_;
  // Workspace reused across calls: activations of the last raw forward, the cached forward's attention
  // weights, and the backward pass's six (N, C) gradient buffers (one per intermediate).
  FloatBuffer ws_, att_w_, grad_ws_;
  BlockActs ws_acts_;
};

// The lesson's EncoderBlock(d, h, d_ff): pre-norm, non-causal attention without biases, exact GELU.
class EncoderBlock {
 public:
  EncoderBlock(int64_t d, int64_t h, int64_t d_ff, uint64_t seed = 123);
  static int64_t num_params(int64_t d, int64_t h, int64_t d_ff);
  static BlockConfig block_config(int64_t d, int64_t h, int64_t d_ff, int64_t context_length = 4096);
  Tensor forward(const Tensor& x, BlockInspection* inspect = nullptr) { return block_.forward(x, inspect); }
  TransformerBlock& block() { return block_; }
  ParamArena& params() { return *block_.own_params(); }

 private:
  TransformerBlock block_;
};

}  // namespace blockscope
