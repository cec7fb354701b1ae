// Text generation: sampling the next token from logits (greedy, temperature, top-k, top-p with a seeded
// RNG that gives the same tokens natively and in wasm) and a step-wise Generator over a KV cache.
// Tokenization is not here: generation works on token ids.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "blockscope/gpt_model.hpp"
#include "blockscope/rng.hpp"

namespace blockscope {

struct SamplingOptions {
  float temperature = 1.0f;  // 0 means greedy (argmax); otherwise logits / temperature
  int64_t top_k = 0;         // keep the k most likely tokens; 0, or any k >= the vocabulary size, keeps all
  float top_p = 1.0f;        // nucleus: keep the smallest set whose probability reaches top_p; 1 keeps all
  void validate() const;     // throws Error: temperature >= 0 and finite, top_k >= 0, 0 < top_p <= 1
};

// Picks a token id from one row of logits. Greedy takes the first maximum. Otherwise applies temperature,
// top-k, then top-p (ties broken by lower id), renormalizes and draws with one rng.uniform(). Throws Error on
// NaN logits or empty input.
int32_t sample_token(std::span<const float> logits, const SamplingOptions& opts, Rng& rng);

// The k most likely next tokens with their probabilities under softmax(logits / temperature) over the whole
// vocabulary (what sampling at that temperature draws from, before top-k/top-p), ordered like sample_token's
// ranking (decreasing logit, ties by id). Throws Error on empty or NaN logits, k < 1 or temperature <= 0.
struct Candidate {
  int32_t id = 0;
  float logit = 0.0f;
  float probability = 0.0f;
};
std::vector<Candidate> top_candidates(std::span<const float> logits, int64_t k, float temperature = 1.0f);

// What to do when the prompt (or prompt + generated tokens) exceeds context_length.
enum class ContextOverflow {
  Error,  // reject a too-long prompt; stop generating when the context is full
  Crop,   // keep the last context_length tokens, like the book's generate_text_simple
};

ContextOverflow parse_context_overflow(const std::string& name);  // "error" | "crop"

// How many leading tokens of an n-token prompt a model with `context_length` does not read: 0 when it fits,
// n - context_length with Crop (the book keeps idx[:, -context_size:]); with Error a prompt that does not fit
// throws, naming both lengths. The one cropping rule: generation, the forward pass's overflow option and every
// widget use it.
int64_t context_start(int64_t n, int64_t context_length, ContextOverflow overflow);

struct GenerateOptions {
  // Generated ids are returned as an int32 array, so at most INT32_MAX of them; nothing is sized by this.
  static constexpr int64_t kMaxNewTokens = INT32_MAX;
  int64_t max_new_tokens = 50;  // in [0, kMaxNewTokens]
  SamplingOptions sampling;
  uint64_t seed = 0;  // any value: the RNG takes all 64 bits
  // e.g. <|endoftext|>; generation stops after emitting it. Held as int64 so an out-of-range id is reported
  // as given, not wrapped: the Generator requires it to be in [0, vocab_size).
  std::optional<int64_t> stop_token;
  ContextOverflow overflow = ContextOverflow::Error;
  // The JavaScript API's option object (config_json.cpp): "maxNewTokens", "temperature", "topK", "topP",
  // "seed", "stopToken" (null: none), "overflow" ("error" | "crop"); all optional, strict, type-checked.
  static GenerateOptions from_json(const nlohmann::json& j);
};

// Generates one token per next() call: the first call prefills the KV cache with the prompt, later calls
// feed back the previous token (one position each). When the context is full, Crop mode slides the window:
// with learned absolute position embeddings every kept token moves to a new position, so no cached key or value
// stays valid and each new token is one full pass over the last context_length tokens (exactly what the book's
// generate_text_simple computes; sliding() says when this happens). Every pass computes the logits of the last
// position only. Error mode stops with stop_reason "context_full".
class Generator {
 public:
  // Throws Error on an empty or invalid prompt, invalid options, (Error mode) a prompt longer than the
  // context, or a KV cache that would not fit the model's memory budget (checked before allocating).
  Generator(GPTModel& model, std::span<const int32_t> prompt, const GenerateOptions& opts);

  // The next token, or nullopt once finished (see stop_reason()).
  std::optional<int32_t> next();
  bool finished() const { return !stop_reason_.empty(); }
  // True once the window slides: the last token came from a full pass over context_length tokens.
  bool sliding() const { return sliding_; }
  // "" while running, then "max_new_tokens", "stop_token" or "context_full".
  const std::string& stop_reason() const { return stop_reason_; }
  const std::vector<int32_t>& generated() const { return generated_; }
  // Logits (V) the last token was sampled from.
  const std::vector<float>& last_logits() const { return last_logits_; }

 private:
  void prefill(std::span<const int32_t> ids);

  GPTModel& model_;
  GenerateOptions opts_;
  Rng rng_;
  KVCache cache_;
  std::vector<int32_t> window_;  // tokens currently in the context (prompt, possibly cropped, + generated)
  std::vector<int32_t> generated_;
  std::vector<float> last_logits_;
  std::string stop_reason_;
  bool sliding_ = false;
};

// Runs a Generator to the end, calling on_token for each new token (return false to stop early).
std::vector<int32_t> generate(GPTModel& model, std::span<const int32_t> prompt, const GenerateOptions& opts,
                              const std::function<bool(int32_t)>& on_token = {});

}  // namespace blockscope
