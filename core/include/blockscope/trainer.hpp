// Training a GPTModel: the configuration, a seeded data loader over a token stream with a train/validation
// split, and the Trainer that runs steps (forward, backward, gradient accumulation, clipping, AdamW with
// warmup + cosine decay) and evaluations, reporting what the widgets plot. The loop that decides when to
// evaluate, when to stop and which weights a diverged run keeps is TrainingRun (training_run.hpp).
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <span>
#include <string>
#include <vector>

#include "blockscope/gpt_model.hpp"
#include "blockscope/optimizer.hpp"
#include "blockscope/rng.hpp"

namespace blockscope {

struct TrainConfig {
  int64_t steps = 1000;       // optimizer updates (the schedule's length)
  int64_t batch_size = 8;     // sequences per micro-batch
  int64_t seq_len = 0;        // tokens per sequence; 0 means the model's context_length
  int64_t grad_accum = 1;     // micro-batches per update
  double lr = 3e-4;
  double min_lr = -1.0;       // the cosine's floor; < 0 means lr / 10
  int64_t warmup = 0;         // linear warmup updates
  double weight_decay = 0.1;  // biases, LayerNorm parameters and embeddings excluded unless decay_all
  bool decay_all = false;
  double beta1 = 0.9, beta2 = 0.95, eps = 1e-8;
  double clip = 1.0;          // max global gradient norm; 0 turns clipping off
  double val_fraction = 0.1;  // the end of the token stream held out for validation
  int64_t eval_batches = 8;   // batches per validation estimate
  int64_t window_stride = 1;  // windows start at multiples of it (TokenData); 1: anywhere
  uint64_t seed = 1;          // data order and dropout masks

  // Upper bounds, far beyond any real run yet low enough that the products training forms stay exact in int64
  // (grad_accum x batch_size x seq_len tokens per update, eval_batches x batch_size validation windows) and
  // that every step number is a valid optimizer step count (< 2^53). Without them --grad-accum 2^63-1 would
  // overflow and then spin forever. batch_size needs none of its own: the memory budget, sized in double,
  // refuses an absurd one.
  static constexpr int64_t kMaxSteps = 1'000'000'000;
  static constexpr int64_t kMaxGradAccum = 1'000'000;
  static constexpr int64_t kMaxEvalBatches = 1'000'000;

  // Error naming the value and its range: steps, grad_accum and eval_batches in [1, their kMax],
  // batch_size >= 1, 0 <= seq_len <= SizeLimits::kMaxContext, lr > 0, 0 <= warmup <= steps, clip >= 0,
  // 0 <= val_fraction < 1, 1 <= window_stride <= SizeLimits::kMaxContext + 1, ... (the optimizer's own checks too).
  void validate() const;
  // Keys: the field names above; unknown keys rejected by name.
  static TrainConfig from_json(const nlohmann::json& j);
  nlohmann::json to_json() const;
  AdamWConfig adamw() const;
  double floor_lr() const { return min_lr < 0.0 ? lr / 10.0 : min_lr; }
};

// A token stream split into training and validation parts; batches of (B, T) windows and their next-token
// targets. Sampling is seeded (PCG32), so a seed fixes the data order natively and in wasm alike.
class TokenData {
 public:
  // The last val_fraction of `tokens` (whole windows of T + 1 are needed on each side) is held out.
  // Throws Error if either part is shorter than T + 1 tokens or an id is outside [0, vocab_size).
  // `stride` > 1: windows start only at multiples of it, for a stream of fixed-length records (an algorithmic
  // task's examples of T + 1 tokens: every window is then one whole example, never the tail of one and the head
  // of the next); the split between training and held-out parts falls on a record boundary (the held-out part
  // rounded down). 1 (any start) is the text default.
  TokenData(std::vector<int32_t> tokens, double val_fraction, int64_t T, int64_t vocab_size, int64_t stride = 1);
  // Separate training and validation streams (e.g. split by document), each windowed from its own start.
  TokenData(std::vector<int32_t> train, std::vector<int32_t> val, int64_t T, int64_t vocab_size, int64_t stride = 1);

  // B random windows of the training part: ids and targets (B, T), targets shifted by one.
  void sample(Rng& rng, int64_t B, std::vector<int32_t>& ids, std::vector<int32_t>& targets) const;
  // Validation batch i of a fixed, evenly spaced set of windows (the same every call).
  void validation_batch(int64_t i, int64_t B, std::vector<int32_t>& ids, std::vector<int32_t>& targets) const;

  int64_t seq_len() const { return T_; }
  int64_t stride() const { return stride_; }
  const std::vector<int32_t>& train() const { return train_; }
  const std::vector<int32_t>& val() const { return val_; }

 private:
  std::vector<int32_t> train_, val_;
  int64_t T_ = 0;
  int64_t stride_ = 1;
};

// What one update reports: the mean loss over its micro-batches, the global gradient norm before clipping,
// the learning rate used, per-layer gradient norms ("embeddings", "trf_blocks.0", ..., "head"), and whether
// it was finite. A non-finite loss or gradient skips the update, so the parameters stay those that produced
// it (TrainingRun then puts back the last weights that gave a finite loss).
struct StepResult {
  int64_t step = 0;  // 1-based number of this update
  double loss = 0.0;
  double grad_norm = 0.0;
  double lr = 0.0;
  std::vector<NamedNorm> layer_grad_norms;
  bool finite = true;
};

class Trainer {
 public:
  // Trains `model` (which must outlive the trainer) on `data`. Allocates the run state, gradients, the
  // optimizer's moments and a copy of the weights once, after checking that they and the parameters fit the
  // model's memory budget (GPTModel::require_memory; Error naming the sizes if not).
  // Step s draws its batches and dropout masks from a generator seeded by (cfg.seed, s): a run resumed at step
  // s (weights + AdamW::load_state) continues exactly as the uninterrupted run would have.
  Trainer(GPTModel& model, const TrainConfig& cfg, TokenData data);
  // The run state's activations for (B, T), in bytes (checked arithmetic). On top of them the budget counts
  // the parameters, their gradients, AdamW's two moments and the weights before the last update.
  static int64_t activation_bytes(const GPTConfig& cfg, int64_t B, int64_t T, bool dropout);

  // One update on freshly sampled batches: begin_step(), accumulate() until it returns false, finish_step().
  StepResult step();
  // The same update in pieces, for callers that must stay responsive between micro-batches (the web worker
  // yields after each accumulate()): begin_step() zeroes the gradients and seeds the step, accumulate() runs
  // the forward and backward pass of the next micro-batch and returns whether more remain, finish_step()
  // clips and updates. Errors if called out of order.
  void begin_step();
  bool accumulate();
  StepResult finish_step();
  // One update on the given batch: ids and targets (micro_batches * B, T) row-major, split into micro_batches
  // micro-batches of the configured batch size (the tests and widgets feed their own batches).
  StepResult step(std::span<const int32_t> ids, std::span<const int32_t> targets);
  // Mean validation loss over cfg.eval_batches fixed batches (dropout off).
  double evaluate();

  int64_t steps_done() const { return optimizer_.steps(); }
  const TrainConfig& config() const { return cfg_; }
  const TokenData& data() const { return data_; }
  GPTModel& model() { return model_; }
  AdamW& optimizer() { return optimizer_; }
  const ParamArena& grads() const { return grads_; }
  // Bytes held for training: activations (run state), gradients, the two AdamW moments and the weights
  // before the last update.
  int64_t memory_bytes() const;

  // The weights as they were before the last update that was applied, i.e. after update
  // previous_weights_step(); -1 when there are none (no update applied yet, or they were put back). Kept so
  // that a diverged run can end with the last weights that gave a finite loss (TrainingRun).
  int64_t previous_weights_step() const { return previous_step_; }
  // Puts those weights back into the model (Error if there are none). The optimizer state is left as it is:
  // its moments still hold the updates since.
  void restore_previous_weights();

 private:
  StepResult update(double loss_sum);
  GPTModel& model_;
  TrainConfig cfg_;
  TokenData data_;
  GPTRunState rs_;
  ParamArena grads_;
  AdamW optimizer_;
  Rng data_rng_, dropout_rng_;
  std::vector<int32_t> ids_, targets_;
  int64_t micro_done_ = -1;  // micro-batches accumulated in the step under way; -1 outside a step
  double loss_sum_ = 0.0;
  FloatBuffer previous_;      // the weights before the last applied update
  int64_t previous_step_ = -1;
};

}  // namespace blockscope
