// Held-out evaluation of a token stream: the mean cross-entropy of a model over a file's tokens cut into
// non-overlapping windows, as `blockscope eval`, the JavaScript GPT.evaluateTokens and the trained model's
// card report it. (The Trainer's validation estimate samples fixed windows instead: Trainer::evaluate.)
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <span>

#include "blockscope/gpt_model.hpp"

namespace blockscope {

struct EvalOptions {
  int64_t seq_len = 0;  // tokens per window; 0 means the model's context_length (TrainConfig's rule)
  int64_t batch = 8;    // full windows per forward pass (changes the result only by rounding)
  // Error naming the value: seq_len in [0, context_length], batch >= 1.
  void validate(const GPTConfig& cfg) const;
  // The JavaScript API's keys {seqLen, batch}, optional; unknown keys rejected by name.
  static EvalOptions from_json(const nlohmann::json& j);
};

struct HeldOutLoss {
  double loss = 0.0;    // mean nats per predicted token
  double nats = 0.0;    // their sum (bits per byte = nats / ln 2 / bytes of the predicted tokens)
  int64_t tokens = 0;   // predicted tokens: every token but the first
  int64_t windows = 0;  // forward windows, the last one shorter if the tokens do not divide evenly
};

// The tokens t0..t(n-1) cut into input windows [0, T), [T, 2T), ... (T = opts.seq_len, or the context
// length); each position predicts the next token, so every token but the first is predicted exactly once and
// the last window is shorter (it counts whenever it has a token and its successor). Windows do not see each
// other's context. Losses are summed per token in double. Error if there are fewer than 2 tokens or an id is
// outside the vocabulary (naming its position).
HeldOutLoss evaluate_tokens(GPTModel& model, std::span<const int32_t> ids, const EvalOptions& opts = {});

}  // namespace blockscope
