// TrainConfig parsing, the seeded token-window data loader and the Trainer's step and evaluation loops.
#include "blockscope/trainer.hpp"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "blockscope/checked.hpp"
#include "blockscope/error.hpp"
#include "json_reader.hpp"

namespace blockscope {

// ---------------------------------------------------------------------------------------------------------
// TrainConfig
// ---------------------------------------------------------------------------------------------------------
void TrainConfig::validate() const {
  adamw().validate();  // the learning rate first: everything else is checked against it
  const auto in_range = [](const char* name, int64_t v, int64_t max) {
    require(v >= 1, name, " must be at least 1, got ", v);
    require(v <= max, name, " must be at most ", max, ", got ", v);
  };
  in_range("steps", steps, kMaxSteps);
  require(batch_size >= 1, "batch_size must be at least 1, got ", batch_size);
  require(seq_len >= 0 && seq_len <= SizeLimits::kMaxContext, "seq_len must be in [0, ", SizeLimits::kMaxContext,
          "] (0 means the context length), got ", seq_len);
  in_range("grad_accum", grad_accum, kMaxGradAccum);
  in_range("eval_batches", eval_batches, kMaxEvalBatches);
  in_range("window_stride", window_stride, SizeLimits::kMaxContext + 1);
  require(warmup >= 0 && warmup <= steps, "warmup must be in [0, steps = ", steps, "], got ", warmup);
  require(std::isfinite(clip) && clip >= 0.0, "clip must be a number >= 0 (0 = off), got ", clip);
  require(std::isfinite(val_fraction) && val_fraction >= 0.0 && val_fraction < 1.0,
          "val_fraction must be in [0, 1), got ", val_fraction);
  require(std::isfinite(min_lr) && min_lr <= lr, "min_lr must not exceed lr (", lr, "), got ", min_lr);
}

AdamWConfig TrainConfig::adamw() const {
  return {lr, beta1, beta2, eps, weight_decay, !decay_all};
}

TrainConfig TrainConfig::from_json(const nlohmann::json& j) {
  const detail::Reader r(j, "training config",
                         {"steps", "batch_size", "seq_len", "grad_accum", "lr", "min_lr", "warmup", "weight_decay",
                          "decay_all", "beta1", "beta2", "eps", "clip", "val_fraction", "eval_batches", "window_stride",
                          "seed"});
  TrainConfig c;
  c.steps = r.integer("steps", c.steps);
  c.batch_size = r.integer("batch_size", c.batch_size);
  c.seq_len = r.integer("seq_len", c.seq_len);
  c.grad_accum = r.integer("grad_accum", c.grad_accum);
  c.lr = r.number("lr", c.lr);
  c.min_lr = r.number("min_lr", c.min_lr);
  c.warmup = r.integer("warmup", c.warmup);
  c.weight_decay = r.number("weight_decay", c.weight_decay);
  c.decay_all = r.flag("decay_all", c.decay_all);
  c.beta1 = r.number("beta1", c.beta1);
  c.beta2 = r.number("beta2", c.beta2);
  c.eps = r.number("eps", c.eps);
  c.clip = r.number("clip", c.clip);
  c.val_fraction = r.number("val_fraction", c.val_fraction);
  c.eval_batches = r.integer("eval_batches", c.eval_batches);
  c.window_stride = r.integer("window_stride", c.window_stride);
  const int64_t seed = r.integer("seed", 1);
  require(seed >= 0, "seed must be >= 0, got ", seed);
  c.seed = static_cast<uint64_t>(seed);
  c.validate();
  return c;
}

nlohmann::json TrainConfig::to_json() const {
  return {{"steps", steps},     {"batch_size", batch_size},     {"seq_len", seq_len},     {"grad_accum", grad_accum},
          {"lr", lr},           {"min_lr", floor_lr()},         {"warmup", warmup},       {"weight_decay", weight_decay},
          {"decay_all", decay_all}, {"beta1", beta1},           {"beta2", beta2},         {"eps", eps},
          {"clip", clip},       {"val_fraction", val_fraction}, {"eval_batches", eval_batches},
          {"window_stride", window_stride}, {"seed", seed}};
}

// ---------------------------------------------------------------------------------------------------------
// TokenData
// ---------------------------------------------------------------------------------------------------------
namespace {
void check_stream(const std::vector<int32_t>& tokens, const char* part, int64_t T, int64_t vocab_size) {
  require(static_cast<int64_t>(tokens.size()) >= T + 1, "the ", part, " data has ", tokens.size(),
          " tokens; a sequence length of ", T, " needs at least ", T + 1);
  for (size_t i = 0; i < tokens.size(); ++i)
    require(tokens[i] >= 0 && tokens[i] < vocab_size, "token id ", tokens[i], " at position ", i, " of the ", part,
            " data is outside the vocabulary [0, ", vocab_size, ")");
}

// A uniform integer in [0, n) from 32 random bits (Lemire's multiply-shift; bias below 2^-32 n).
int64_t uniform_index(Rng& rng, int64_t n) {
  return static_cast<int64_t>((static_cast<uint64_t>(rng.next_u32()) * static_cast<uint64_t>(n)) >> 32);
}

void check_windowing(int64_t T, int64_t stride) {
  require(T > 0 && T <= SizeLimits::kMaxContext, "sequence length must be in [1, ", SizeLimits::kMaxContext,
          "], got ", T);
  require(stride >= 1 && stride <= SizeLimits::kMaxContext + 1, "the window stride must be in [1, ",
          SizeLimits::kMaxContext + 1, "], got ", stride);
}

// How many windows of T + 1 tokens start at a multiple of `stride` (check_stream guarantees at least one).
int64_t window_starts(const std::vector<int32_t>& tokens, int64_t T, int64_t stride) {
  return (static_cast<int64_t>(tokens.size()) - T - 1) / stride + 1;
}

void window(const std::vector<int32_t>& tokens, int64_t start, int64_t T, int32_t* ids, int32_t* targets) {
  for (int64_t t = 0; t < T; ++t) {
    ids[t] = tokens[static_cast<size_t>(start + t)];
    targets[t] = tokens[static_cast<size_t>(start + t + 1)];
  }
}
}  // namespace

TokenData::TokenData(std::vector<int32_t> tokens, double val_fraction, int64_t T, int64_t vocab_size, int64_t stride)
    : T_(T), stride_(stride) {
  check_windowing(T, stride);
  require(std::isfinite(val_fraction) && val_fraction >= 0.0 && val_fraction < 1.0,
          "val_fraction must be in [0, 1), got ", val_fraction);
  const auto n = static_cast<int64_t>(tokens.size());
  // The split falls on a record boundary (rounding the held-out part down), so the held-out windows, counted from
  // its start, begin at records too.
  const auto wanted = static_cast<int64_t>(std::floor(static_cast<double>(n) * val_fraction));
  const int64_t split = (n - wanted + stride - 1) / stride * stride;
  const int64_t n_val = std::max<int64_t>(0, n - split);
  val_.assign(tokens.end() - n_val, tokens.end());
  tokens.resize(static_cast<size_t>(n - n_val));
  train_ = std::move(tokens);
  check_stream(train_, "training", T, vocab_size);
  if (val_fraction > 0.0) check_stream(val_, "validation", T, vocab_size);
}

TokenData::TokenData(std::vector<int32_t> train, std::vector<int32_t> val, int64_t T, int64_t vocab_size,
                     int64_t stride)
    : train_(std::move(train)), val_(std::move(val)), T_(T), stride_(stride) {
  check_windowing(T, stride);
  check_stream(train_, "training", T, vocab_size);
  if (!val_.empty()) check_stream(val_, "validation", T, vocab_size);
}

void TokenData::sample(Rng& rng, int64_t B, std::vector<int32_t>& ids, std::vector<int32_t>& targets) const {
  ids.resize(to_size(checked_mul(B, T_, "a batch's token count"), "a batch's token ids"));
  targets.resize(ids.size());
  const int64_t starts = window_starts(train_, T_, stride_);
  for (int64_t b = 0; b < B; ++b)
    window(train_, uniform_index(rng, starts) * stride_, T_, &ids[b * T_], &targets[b * T_]);
}

void TokenData::validation_batch(int64_t i, int64_t B, std::vector<int32_t>& ids,
                                 std::vector<int32_t>& targets) const {
  require(!val_.empty(), "there is no validation data (val_fraction is 0)");
  ids.resize(to_size(checked_mul(B, T_, "a batch's token count"), "a batch's token ids"));
  targets.resize(ids.size());
  const auto starts = static_cast<uint64_t>(window_starts(val_, T_, stride_));
  // Window k of a fixed sequence spreading windows evenly over the validation stream (golden-ratio stride).
  for (int64_t b = 0; b < B; ++b) {
    const auto k = static_cast<uint64_t>(i * B + b);
    const auto start = static_cast<int64_t>((k * 0x9E3779B97F4A7C15ULL) % starts) * stride_;
    window(val_, start, T_, &ids[b * T_], &targets[b * T_]);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Trainer
// ---------------------------------------------------------------------------------------------------------
namespace {
const TrainConfig& checked(const TrainConfig& cfg, const GPTModel& model, const TokenData& data) {
  model.require_trainable("train it");
  cfg.validate();
  const GPTConfig& mc = model.config();
  const int64_t T = mc.sequence_length(cfg.seq_len);
  require(T <= mc.context_length, "seq_len ", T, " exceeds the model's context_length ", mc.context_length);
  require(data.seq_len() == T, "the data was windowed for sequences of ", data.seq_len(), " tokens, the training ",
          "config asks for ", T);
  require(data.stride() == cfg.window_stride, "the data's windows start at multiples of ", data.stride(),
          ", the training config's window_stride is ", cfg.window_stride);
  // Before allocating anything: activations for (batch_size, T), then gradients, AdamW's two moments and the
  // copy of the weights, each as large as the parameters. The activations are linear in the batch size: one
  // sequence's are counted exactly and multiplied in double, so an absurd batch is over the budget rather
  // than an int64 overflow.
  const bool dropout = mc.drop_rate > 0.0;
  const double per_sequence = static_cast<double>(Trainer::activation_bytes(mc, 1, T, dropout));
  const double rough = per_sequence * static_cast<double>(cfg.batch_size);
  const double acts = rough > 1e15 ? rough : static_cast<double>(Trainer::activation_bytes(mc, cfg.batch_size, T, dropout));
  model.require_memory({{detail::concat("training activations for batch_size ", cfg.batch_size, " x seq_len ", T),
                         acts},
                        {"the gradients, AdamW's two moments and the weights before the last update",
                         4.0 * static_cast<double>(GPTModel::parameter_bytes(mc))}},
                       "lower batch_size or seq_len");
  return cfg;
}

// The generator of step `step`'s data or dropout: a fresh PCG32 stream per (seed, step), so step s draws
// the same batches whether the run got there uninterrupted or resumed from a checkpoint at step s.
Rng step_rng(uint64_t seed, int64_t step, uint64_t stream) {
  uint64_t x = seed ^ (0x9E3779B97F4A7C15ULL * static_cast<uint64_t>(step + 1));
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;  // splitmix64's finalizer
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return Rng(x ^ (x >> 31), stream);
}

// "embeddings", "trf_blocks.<i>", "head": the groups of the per-layer gradient norms.
std::string layer_of(const std::string& name) {
  if (name.rfind("trf_blocks.", 0) == 0) return name.substr(0, name.find('.', 11));
  if (name.rfind("tok_emb", 0) == 0 || name.rfind("pos_emb", 0) == 0) return "embeddings";
  return "head";
}
}  // namespace

Trainer::Trainer(GPTModel& model, const TrainConfig& cfg, TokenData data)
    : model_(model),
      cfg_(checked(cfg, model, data)),
      data_(std::move(data)),
      rs_(model.config(), cfg.batch_size, data_.seq_len(), model.config().drop_rate > 0.0),
      grads_(ParamArena::zeros_like(model.params())),
      optimizer_(model.params(), cfg.adamw()),
      data_rng_(cfg.seed, 101),
      dropout_rng_(cfg.seed, 202),
      previous_(to_size(model.params().capacity(), "the copy of the weights")) {}

StepResult Trainer::step() {
  begin_step();
  while (accumulate()) {
  }
  return finish_step();
}

void Trainer::begin_step() {
  data_rng_ = step_rng(cfg_.seed, optimizer_.steps(), 101);
  dropout_rng_ = step_rng(cfg_.seed, optimizer_.steps(), 202);
  grads_.zero();
  loss_sum_ = 0.0;
  micro_done_ = 0;
}

bool Trainer::accumulate() {
  require(micro_done_ >= 0 && micro_done_ < cfg_.grad_accum,
          micro_done_ < 0 ? "accumulate() needs begin_step() first"
                          : "every micro-batch of this step is done: call finish_step()");
  data_.sample(data_rng_, cfg_.batch_size, ids_, targets_);
  loss_sum_ += model_.forward_loss(rs_, ids_, targets_, rs_.dropout ? &dropout_rng_ : nullptr);
  model_.backward(rs_, grads_, 1.0f / static_cast<float>(cfg_.grad_accum));
  return ++micro_done_ < cfg_.grad_accum;
}

StepResult Trainer::finish_step() {
  require(micro_done_ == cfg_.grad_accum, "finish_step() needs begin_step() and all ", cfg_.grad_accum,
          " micro-batches accumulated, got ", micro_done_ < 0 ? 0 : micro_done_);
  micro_done_ = -1;
  return update(loss_sum_);
}

StepResult Trainer::step(std::span<const int32_t> ids, std::span<const int32_t> targets) {
  micro_done_ = -1;  // abandons a step in pieces under way
  const int64_t micro = cfg_.batch_size * data_.seq_len();
  require(static_cast<int64_t>(ids.size()) == cfg_.grad_accum * micro && targets.size() == ids.size(),
          "a step needs grad_accum x batch_size x seq_len = ", cfg_.grad_accum, " x ", cfg_.batch_size, " x ",
          data_.seq_len(), " token ids and as many targets, got ", ids.size(), " and ", targets.size());
  dropout_rng_ = step_rng(cfg_.seed, optimizer_.steps(), 202);
  grads_.zero();
  double loss_sum = 0.0;
  for (int64_t k = 0; k < cfg_.grad_accum; ++k) {
    loss_sum += model_.forward_loss(rs_, ids.subspan(k * micro, micro), targets.subspan(k * micro, micro),
                                    rs_.dropout ? &dropout_rng_ : nullptr);
    model_.backward(rs_, grads_, 1.0f / static_cast<float>(cfg_.grad_accum));
  }
  return update(loss_sum);
}

StepResult Trainer::update(double loss_sum) {
  StepResult r;
  r.step = optimizer_.steps() + 1;
  r.loss = loss_sum / static_cast<double>(cfg_.grad_accum);
  r.layer_grad_norms = grouped_norms(grads_, layer_of);
  r.grad_norm = clip_grad_norm(grads_, cfg_.clip);
  r.lr = scheduled_lr(optimizer_.steps(), cfg_.steps, cfg_.warmup, cfg_.lr, cfg_.floor_lr());
  r.finite = std::isfinite(r.loss) && std::isfinite(r.grad_norm);
  if (!r.finite) return r;  // a diverged step leaves the weights alone
  const ParamArena& p = model_.params();
  std::copy(p.data(), p.data() + p.capacity(), previous_.data());
  previous_step_ = optimizer_.steps();
  optimizer_.step(model_.params(), grads_, r.lr);
  return r;
}

void Trainer::restore_previous_weights() {
  require(previous_step_ >= 0, "there are no earlier weights to put back (no update was applied since the last)");
  std::copy(previous_.begin(), previous_.end(), model_.params().data());
  previous_step_ = -1;
}

double Trainer::evaluate() {
  double sum = 0.0;
  for (int64_t i = 0; i < cfg_.eval_batches; ++i) {
    data_.validation_batch(i, cfg_.batch_size, ids_, targets_);
    sum += model_.loss(ids_, targets_, cfg_.batch_size, data_.seq_len());
  }
  return sum / static_cast<double>(cfg_.eval_batches);
}

int64_t Trainer::memory_bytes() const {  // activations + gradients + AdamW's m and v + the previous weights
  const char* what = "the trainer's memory";
  return float_bytes(checked_add(rs_.floats(), checked_mul(4, grads_.capacity(), what), what), what);
}

int64_t Trainer::activation_bytes(const GPTConfig& cfg, int64_t B, int64_t T, bool dropout) {
  return float_bytes(GPTRunState::size(cfg, B, T, dropout), "the training activations");
}

}  // namespace blockscope
