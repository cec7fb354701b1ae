// evaluate_tokens: a model's mean cross-entropy over a token stream in non-overlapping windows.
#include "blockscope/evaluation.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <vector>

#include "blockscope/error.hpp"
#include "json_reader.hpp"

namespace blockscope {

void EvalOptions::validate(const GPTConfig& cfg) const {
  require(seq_len >= 0 && seq_len <= cfg.context_length, "seqLen must be in [0, context_length = ",
          cfg.context_length, "] (0 = the context length), got ", seq_len);
  require(batch >= 1, "batch must be at least 1, got ", batch);
}

EvalOptions EvalOptions::from_json(const nlohmann::json& j) {
  const detail::Reader r(j, "evaluation options", {"seqLen", "batch"});
  EvalOptions o;
  o.seq_len = r.integer("seqLen", o.seq_len);
  o.batch = r.integer("batch", o.batch);
  return o;
}

HeldOutLoss evaluate_tokens(GPTModel& model, std::span<const int32_t> ids, const EvalOptions& opts) {
  const GPTConfig& cfg = model.config();
  opts.validate(cfg);
  const auto n = static_cast<int64_t>(ids.size());
  require(n >= 2, "evaluation needs at least 2 tokens (a token and the next one to predict), got ", n);
  for (int64_t i = 0; i < n; ++i)
    require(ids[i] >= 0 && ids[i] < cfg.vocab_size, "token id ", ids[i], " at position ", i,
            " is outside the vocabulary [0, ", cfg.vocab_size, ")");
  const int64_t T = cfg.sequence_length(opts.seq_len), predicted = n - 1;
  const int64_t full = predicted / T, tail = predicted % T;
  HeldOutLoss r;
  std::vector<int32_t> in, out;
  for (int64_t w = 0; w < full; w += opts.batch) {  // full windows, batched
    const int64_t B = std::min(opts.batch, full - w);
    in.clear();
    out.clear();
    for (int64_t b = 0; b < B; ++b) {
      const auto s = ids.begin() + (w + b) * T;
      in.insert(in.end(), s, s + T);
      out.insert(out.end(), s + 1, s + T + 1);
    }
    r.nats += model.loss(in, out, B, T) * static_cast<double>(B * T);
  }
  if (tail > 0) {
    const auto s = ids.begin() + full * T;
    in.assign(s, s + tail);
    out.assign(s + 1, s + tail + 1);
    r.nats += model.loss(in, out, 1, tail) * static_cast<double>(tail);
  }
  r.tokens = predicted;
  r.windows = full + (tail > 0 ? 1 : 0);
  r.loss = r.nats / static_cast<double>(predicted);
  return r;
}

}  // namespace blockscope
