// GPTModel (book ch. 4.6): token + positional embeddings, n_layers TransformerBlocks, a final LayerNorm and
// the out_head projection to vocabulary logits. Configured with exactly the book's GPT_CONFIG_124M keys plus
// `tie_weights` (out_head shares tok_emb's matrix, as in GPT-2) and `norm` ("pre" / "post").
// Parameters live in one ParamArena under the book's state_dict names.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "blockscope/inspection.hpp"
#include "blockscope/memory_budget.hpp"
#include "blockscope/param_arena.hpp"
#include "blockscope/rng.hpp"
#include "blockscope/tensor.hpp"
#include "blockscope/transformer_block.hpp"

namespace blockscope {

struct GPTConfig {
  int64_t vocab_size = 50257;
  int64_t context_length = 1024;
  int64_t emb_dim = 768;
  int64_t n_heads = 12;
  int64_t n_layers = 12;
  double drop_rate = 0.1;
  bool qkv_bias = false;
  bool tie_weights = false;  // the book's GPTModel is untied (163M parameters); GPT-2 ties (124M)
  NormPlacement norm = NormPlacement::Pre;
  float layer_norm_epsilon = 1e-5f;  // the book's LayerNorm eps; Hugging Face's "layer_norm_epsilon"
  int64_t ffn_hidden = 0;            // the feed-forward width; 0 means 4 * emb_dim (the book, GPT-2)
  Activation activation = Activation::GeluTanh;  // the feed-forward activation (GPT-2: GELU, tanh form)
  bool residual = true;  // false: blocks without shortcut connections (an experiment; "residual": false)

  static GPTConfig gpt2_124m();  // the book's GPT_CONFIG_124M
  BlockConfig block() const;
  // Tokens per sequence when a caller asks for `seq_len`: 0 means the context length (training, evaluation).
  int64_t sequence_length(int64_t seq_len) const { return seq_len > 0 ? seq_len : context_length; }
  // Throws Error naming the field: sizes must be positive and within SizeLimits (n_layers <= 4096,
  // emb_dim <= 2^16, context_length <= 2^20, ffn_hidden <= 2^20, vocab_size <= INT32_MAX), emb_dim divisible
  // by n_heads (so n_heads <= emb_dim), 0 <= drop_rate < 1.
  void validate() const;
  // The book's keys ("vocab_size", "context_length", "emb_dim", "n_heads", "n_layers", "drop_rate",
  // "qkv_bias") plus optional "tie_weights", "norm", "layer_norm_epsilon", "ffn_hidden", "activation" and
  // "residual" (written only when false, so ordinary configs keep the book's keys).
  // Unknown keys are rejected by name (config_json.cpp).
  static GPTConfig from_json(const nlohmann::json& j);
  nlohmann::json to_json() const;
};

class GPTModel;

// Keys and values of every layer for incremental decoding of one sequence (llama2.c's (L, T, C) cache).
struct KVCache {
  int64_t n_layers = 0, context_length = 0, dim = 0;
  int64_t length = 0;        // tokens cached so far
  FloatBuffer k, v;          // (L, context_length, C) each
  // Throws Error before allocating if the cache plus the config's float32 parameters exceed `budget`.
  explicit KVCache(const GPTConfig& cfg, const MemoryBudget& budget = {});
  // A cache for `model`, checked against its memory budget (GPTModel::require_memory) before allocating.
  explicit KVCache(const GPTModel& model);
  // Bytes of the k and v buffers for `cfg`: 2 x n_layers x context_length x emb_dim floats.
  static int64_t bytes(const GPTConfig& cfg);
  void clear() { length = 0; }
  KVSlot slot(int64_t layer);

 private:
  void allocate();  // the k and v buffers, after the budget check
};

// Everything a training forward pass keeps for its backward, sized once per (B, T) in one arena (llm.c's
// ActivationTensors). N = B T rows, C = emb_dim, V = vocab_size.
struct GPTRunState {
  GPTRunState(const GPTConfig& cfg, int64_t B, int64_t T, bool dropout);
  int64_t B = 0, T = 0;
  bool dropout = false;              // masks allocated: training with drop_rate > 0
  std::vector<int32_t> ids, targets;  // (B, T) of the last forward pass (targets: of the last forward_loss)
  float emb_scale = 1.0f;             // the embedding's scale in the last forward_logits (integrated gradients)
  float* emb = nullptr;               // (N, C) drop_emb(tok_emb(ids) + pos_emb), the first block's input
  float* emb_mask = nullptr;          // (N, C) or null
  std::vector<BlockActs> layers;      // one per block
  float* lnf_mean = nullptr;          // (N)
  float* lnf_rstd = nullptr;          // (N)
  float* lnf_out = nullptr;           // (N, C)
  float* logits = nullptr;            // (N, V); holds d loss / d logits after backward
  float* losses = nullptr;            // (N) per-position cross-entropy
  int64_t floats() const { return static_cast<int64_t>(mem_.size()); }
  // Floats a run state of this shape needs (to check a memory budget before allocating).
  static int64_t size(const GPTConfig& cfg, int64_t B, int64_t T, bool dropout);

 private:
  FloatBuffer mem_;
};

class GPTModel {
 public:
  // Builds the model and initializes it deterministically from `seed` like the book's PyTorch modules:
  // embeddings ~ N(0, 1), Linear ~ U(+-1/sqrt(fan_in)), LayerNorm scale 1 / shift 0.
  // Throws Error before allocating if the parameters alone exceed `budget`, which then bounds every later
  // call (forward activations, KV caches, training state; see memory_budget.hpp).
  explicit GPTModel(const GPTConfig& cfg, uint64_t seed = 123, const MemoryBudget& budget = {});
  // Builds the model without the random initialisation (LayerNorm scale 1, everything else 0), for loaders
  // that overwrite every parameter: a 124M-parameter random init costs seconds in wasm.
  struct Uninitialized {};
  // With WeightFormat::Int8 the token embedding and every Linear matrix (attention, feed-forward, an untied
  // out_head) are stored as int8 (quantized.hpp) and the model is inference-only: forward, forward_cached
  // and loss work, backward and init throw. Everything else (position embedding, LayerNorms, biases) stays
  // float32. A tied head reads the same int8 embedding.
  GPTModel(const GPTConfig& cfg, Uninitialized, const MemoryBudget& budget = {},
           WeightFormat weights = WeightFormat::F32);
  GPTModel(GPTModel&&) = default;

  // Parameter count without building the model (GPT_CONFIG_124M: 163,009,536 untied, 124,412,160 tied).
  // Validates cfg first; every product and sum is checked (checked.hpp).
  static int64_t count_parameters(const GPTConfig& cfg);
  // What the memory budget counts, in bytes (each validates and checks its arithmetic):
  static int64_t parameter_bytes(const GPTConfig& cfg);  // 4 x count_parameters
  // forward(ids, B, T, inspect) on top of the parameters: the residual stream and final-norm buffers, one
  // block's activations (attention weights B x n_heads x T x T included), the logits B x T x vocab and, when
  // inspecting, every layer's recorded statistics, FFN hidden values and attention weights.
  static int64_t forward_bytes(const GPTConfig& cfg, int64_t B, int64_t T, bool inspect = false);
  // A cached forward of T new tokens after `cached` ones (generation's prefill and steps), without the cache.
  static int64_t cached_forward_bytes(const GPTConfig& cfg, int64_t T, int64_t cached);
  const MemoryBudget& memory_budget() const { return budget_; }
  // Throws Error if the model's own parameters already exceed the new budget.
  void set_memory_budget(const MemoryBudget& budget);
  // The one check of what a call allocates for this model (forward passes, KV caches, training state): Error
  // unless `parts` plus the bytes its parameters occupy fit its memory budget (MemoryBudget::require_fits's
  // message, ending in `hint` if given). Called before anything is allocated.
  void require_memory(std::initializer_list<MemoryBudget::Part> parts, const char* hint = nullptr) const;
  int64_t num_parameters() const { return params_.used() + params_.int8_numel(); }
  WeightFormat weight_format() const { return weights_; }
  // Bytes the parameters occupy: 4 per float32 value plus the int8 parameters' codes and scales.
  int64_t stored_parameter_bytes() const { return 4 * params_.used() + params_.int8_bytes(); }
  // Throws Error saying int8 weights are inference-only if this model has them; `what` names the attempt.
  void require_trainable(const char* what) const;

  void init(uint64_t seed);
  // ids (B, T), row-major, each in [0, vocab_size), 1 <= T <= context_length -> logits (B, T, V).
  // With `inspect`, also records last_inspection() during this same pass. Throws Error before allocating
  // anything if forward_bytes + parameter bytes exceed the memory budget; the model is then unchanged.
  Tensor forward(std::span<const int32_t> ids, int64_t B, int64_t T, bool inspect = false);
  const ForwardInspection& last_inspection() const { return inspection_; }
  // Incremental forward for generation (batch 1): the T new `ids` at positions cache.length ..
  // cache.length+T-1, attending to everything cached; appends them to `cache` and returns their logits
  // (T, V). Equal to the corresponding rows of a full forward over the whole sequence. Throws Error if the
  // cache would exceed context_length or an id is outside the vocabulary. With `last_only`, only the last
  // token's logits (1, V): the last block's rows after its attention, the final norm and the output head run
  // for that position alone (generation samples from nothing else), every key and value still cached.
  Tensor forward_cached(std::span<const int32_t> ids, KVCache& cache, bool last_only = false);

  // Training (gpt_training.cpp). forward_loss: the forward pass over ids (B, T) with every activation kept
  // in `rs`, then the mean cross-entropy of the logits against targets (B, T) (F.cross_entropy). With
  // rs.dropout, masks are drawn from `dropout_rng`, or, if it is null, used as the caller filled them.
  double forward_loss(GPTRunState& rs, std::span<const int32_t> ids, std::span<const int32_t> targets,
                      Rng* dropout_rng = nullptr);
  // Backward of the last forward_loss on `rs`: accumulates d(loss_scale * loss)/d parameter into `grads`
  // (an arena from ParamArena::zeros_like(params())). A tied head's gradient lands in tok_emb's.
  void backward(GPTRunState& rs, ParamArena& grads, float loss_scale = 1.0f);
  // The same forward pass up to the logits (rs.logits), the embedding scaled by `emb_scale` (integrated
  // gradients walk the path from a zero embedding). forward_loss is this plus the cross-entropy.
  void forward_logits(GPTRunState& rs, std::span<const int32_t> ids, Rng* dropout_rng = nullptr, float emb_scale = 1.0f);
  // Backward from d(objective)/d logits, which the caller has put in rs.logits: parameter gradients accumulate in
  // `grads`; with `d_emb` (N, C) the gradient with respect to the first block's input is written there instead of
  // flowing into the embedding tables.
  void backward_logits(GPTRunState& rs, ParamArena& grads, float* d_emb);
  // The residual stream at every layer, batch 1: (L + 1, T, C), row 0 the embeddings' output, row l block l's.
  Tensor residual_streams(std::span<const int32_t> ids);
  // The final LayerNorm and the output head applied to N rows of a residual stream x (N, C): logits (N, V).
  void head_logits(float* logits, const float* x, int64_t N);
  // Mean cross-entropy without keeping activations (evaluation; dropout off).
  double loss(std::span<const int32_t> ids, std::span<const int32_t> targets, int64_t B, int64_t T);

  const GPTConfig& config() const { return cfg_; }
  ParamArena& params() { return params_; }
  const ParamArena& params() const { return params_; }
  std::vector<TransformerBlock>& blocks() { return blocks_; }
  // Switches every block between pre- and post-norm, keeping the weights.
  void set_norm_placement(NormPlacement p);
  // Throws Error naming the first id outside [0, vocab_size) and its position.
  void check_ids(std::span<const int32_t> ids, int64_t B, int64_t T) const;

 private:
  GPTConfig cfg_;
  MemoryBudget budget_;
  ParamArena params_;
  float* tok_emb_ = nullptr;   // (V, C); null when int8
  const Q8Matrix* tok_emb_q8_ = nullptr;  // (V, C) when int8
  float* pos_emb_ = nullptr;   // (context_length, C)
  std::vector<TransformerBlock> blocks_;
  LayerNorm final_norm_;
  Linear out_head_;            // (V, C), no bias; its weight is tok_emb_ when tied
  void embed(float* x, std::span<const int32_t> ids, int64_t B, int64_t T, int64_t pos0) const;
  void final_logits(float* logits, const float* x, int64_t N, bool inspect);
  void check_targets(std::span<const int32_t> targets, int64_t n) const;
  void trim_workspace();

  FloatBuffer x_, y_, normed_;  // residual stream ping-pong and final-norm output (B, T, C)
  FloatBuffer acts_;            // one block's activations, shared by all blocks at inference
  FloatBuffer att_w_;           // the cached forward's attention weights (n_heads, T, S), shared likewise
  FloatBuffer dx_, dy_;         // backward: the residual stream's gradient (B, T, C), ping-pong
  ForwardInspection inspection_;
  WeightFormat weights_ = WeightFormat::F32;
};

}  // namespace blockscope
