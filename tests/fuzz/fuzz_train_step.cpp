// One training update (Trainer::step on a given batch) of a small random GPT: vocab <= 64, emb_dim <= 16,
// n_layers <= 2, T <= 8, batch <= 2 x 2 micro-batches. The first bytes pick the model and training configs
// (mostly valid, sometimes zero or negative, which must be an Error), the rest are token ids and targets
// (taken modulo the vocabulary unless the "raw ids" choice is set: out-of-range ids must then be an Error).
// A step the config and data accept must report a finite loss, and the evaluation after it too.
#include <fuzzer/FuzzedDataProvider.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "blockscope/error.hpp"
#include "blockscope/gpt_model.hpp"
#include "blockscope/trainer.hpp"
#include "fuzz_common.hpp"

namespace {
using namespace blockscope;

// Mostly in [lo, hi]; one time in 16, a value just outside (lo - 1), which validation must reject.
int64_t size_in(FuzzedDataProvider& in, int64_t lo, int64_t hi) {
  const int64_t v = in.ConsumeIntegralInRange<int64_t>(lo - 1, hi + 14 * (hi - lo + 1));
  return v < lo ? v : lo + (v - lo) % (hi - lo + 1);
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  GPTConfig cfg;
  cfg.vocab_size = size_in(in, 1, 64);
  cfg.n_heads = size_in(in, 1, 4);
  cfg.emb_dim = cfg.n_heads * size_in(in, 1, 4);
  if (in.ConsumeIntegralInRange(0, 15) == 0) cfg.emb_dim += 1;  // not divisible by n_heads
  cfg.n_layers = size_in(in, 1, 2);
  cfg.context_length = size_in(in, 1, 8);
  cfg.drop_rate = in.PickValueInArray({0.0, 0.0, 0.1, 0.5, 0.99});
  cfg.qkv_bias = in.ConsumeBool();
  cfg.tie_weights = in.ConsumeBool();
  cfg.norm = in.ConsumeBool() ? NormPlacement::Pre : NormPlacement::Post;
  cfg.ffn_hidden = in.ConsumeIntegralInRange<int64_t>(0, 32);
  cfg.activation = in.PickValueInArray({Activation::GeluTanh, Activation::GeluErf, Activation::Relu, Activation::Tanh});
  cfg.residual = in.ConsumeIntegralInRange(0, 7) != 0;
  cfg.layer_norm_epsilon = in.PickValueInArray({1e-5f, 1e-12f, 0.1f});

  TrainConfig tc;
  tc.steps = size_in(in, 1, 4);
  tc.batch_size = size_in(in, 1, 2);
  tc.grad_accum = size_in(in, 1, 2);
  tc.seq_len = in.ConsumeIntegralInRange<int64_t>(0, cfg.context_length);
  tc.lr = in.PickValueInArray({3e-4, 1e-2, 1.0, 0.0});
  tc.warmup = in.ConsumeIntegralInRange<int64_t>(0, tc.steps);
  tc.weight_decay = in.PickValueInArray({0.0, 0.1});
  tc.decay_all = in.ConsumeBool();
  tc.clip = in.PickValueInArray({1.0, 0.0, 1e-6});
  tc.val_fraction = 0.0;
  tc.eval_batches = 1;
  tc.seed = in.ConsumeIntegral<uint8_t>();
  const bool raw_ids = in.ConsumeIntegralInRange(0, 15) == 0;

  try {
    GPTModel model(cfg, /*seed=*/in.ConsumeIntegral<uint8_t>());
    const int64_t T = cfg.sequence_length(tc.seq_len);
    const int64_t n = tc.grad_accum * tc.batch_size * T;
    std::vector<int32_t> ids(static_cast<size_t>(n)), targets(static_cast<size_t>(n));
    for (auto* v : {&ids, &targets})
      for (int32_t& id : *v) {
        const int32_t b = in.ConsumeIntegral<int32_t>();
        id = raw_ids ? b : static_cast<int32_t>(static_cast<uint32_t>(b) % static_cast<uint32_t>(cfg.vocab_size));
      }
    // The data stream (for evaluate): one window of T + 1 valid tokens.
    const std::vector<int32_t> stream(static_cast<size_t>(T + 1), 0);
    Trainer trainer(model, tc, TokenData(stream, std::vector<int32_t>(stream), T, cfg.vocab_size));
    const StepResult r = trainer.step(ids, targets);
    if (!std::isfinite(r.loss)) fuzz::fail("training step loss is not finite");
    if (!r.finite) fuzz::fail("training step gradients are not finite");
    if (!std::isfinite(trainer.evaluate())) fuzz::fail("evaluation loss after a step is not finite");
  } catch (const Error&) {
  }
  return 0;
}
