// TransformerBlock (book ch. 4.5): attention and feed-forward sublayers, each wrapped in a LayerNorm and
// a shortcut connection. Pre-norm (GPT-2, default): x + drop(att(norm1(x))), then x + drop(ff(norm2(x))).
// Post-norm (original Transformer): norm1(x + drop(att(x))), then norm2(x + drop(ff(x))).
// EncoderBlock is the lesson's non-causal, bias-free-attention, exact-GELU pre-norm variant.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "blockscope/feed_forward.hpp"
#include "blockscope/inspection.hpp"
#include "blockscope/layer_norm.hpp"
#include "blockscope/multi_head_attention.hpp"
#include "blockscope/param_arena.hpp"
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
  float ln_eps = 1e-5f;

  int64_t hidden_dim() const { return ffn_hidden > 0 ? ffn_hidden : 4 * emb_dim; }
  AttentionConfig attention() const;
  FeedForwardConfig feed_forward() const;
  void validate() const;
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
  // Raw form: out, inp (B, T, emb_dim); out must not alias inp.
  void forward(float* out, const float* inp, int64_t B, int64_t T, BlockInspection* inspect = nullptr);
  // Incremental form for KV-cache decoding (B = 1): T new tokens after the kv.pos cached ones.
  void forward_cached(float* out, const float* inp, int64_t T, const KVSlot& kv);

  const BlockConfig& config() const { return cfg_; }
  NormPlacement norm_placement() const { return cfg_.norm; }
  void set_norm_placement(NormPlacement p) { cfg_.norm = p; }  // same weights, other wiring
  ParamArena* own_params() { return own_.get(); }
  MultiHeadAttention& att() { return att_; }
  FeedForward& ff() { return ff_; }
  LayerNorm& norm1() { return norm1_; }
  LayerNorm& norm2() { return norm2_; }

 private:
  void ensure_workspace(int64_t B, int64_t T);
  void attention_half(float* out, const float* inp, int64_t B, int64_t T, BlockInspection* inspect,
                      const KVSlot* kv = nullptr);
  void attend(float* out, float* att, const float* inp, int64_t B, int64_t T, const KVSlot* kv);
  void ffn_half(float* out, const float* inp, int64_t B, int64_t T, BlockInspection* inspect);

  BlockConfig cfg_;
  std::unique_ptr<ParamArena> own_;
  MultiHeadAttention att_;
  FeedForward ff_;
  LayerNorm norm1_, norm2_;
  // Workspace reused across calls.
  std::vector<float> normed_, sub_, mid_, hidden_pre_, hidden_post_, att_w_;
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
