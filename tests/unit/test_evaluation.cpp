// Tests for evaluation.hpp: evaluate_tokens equals the per-position cross-entropy of full forward passes over
// non-overlapping windows (the last one shorter), predicts every token but the first once, does not depend on
// the batch beyond rounding, and names bad input.
#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>
#include <vector>

#include "blockscope/error.hpp"
#include "blockscope/evaluation.hpp"
#include "support/configs.hpp"

using namespace blockscope;
using Catch::Contains;

namespace {
// Mean cross-entropy of window [s, s + T) predicting [s + 1, s + T + 1), from the forward pass's logits.
double window_nats(GPTModel& model, const std::vector<int32_t>& ids, int64_t s, int64_t T) {
  const std::vector<int32_t> in(ids.begin() + s, ids.begin() + s + T);
  const Tensor logits = model.forward(in, 1, T);
  const int64_t V = model.config().vocab_size;
  double sum = 0.0;
  for (int64_t t = 0; t < T; ++t) {
    const float* row = logits.data.data() + t * V;
    double max = row[0], z = 0.0;
    for (int64_t v = 1; v < V; ++v) max = std::max<double>(max, row[v]);
    for (int64_t v = 0; v < V; ++v) z += std::exp(row[v] - max);
    sum += max + std::log(z) - row[ids[static_cast<size_t>(s + t + 1)]];
  }
  return sum;
}
}  // namespace

TEST_CASE("held-out evaluation is the cross-entropy of non-overlapping windows, the last one shorter",
          "[evaluation]") {
  GPTModel model(test::small_gpt(11, 8, 8, 2, 2), 5);
  std::vector<int32_t> ids;
  for (int i = 0; i < 30; ++i) ids.push_back((i * 3 + i / 4) % 11);
  // 29 predicted tokens in windows of 8: three full, one of 5.
  double expect = 0.0;
  for (int64_t w = 0; w < 3; ++w) expect += window_nats(model, ids, w * 8, 8);
  expect += window_nats(model, ids, 24, 5);
  const HeldOutLoss r = evaluate_tokens(model, ids);
  CHECK(r.tokens == 29);
  CHECK(r.windows == 4);
  CHECK(r.nats == Approx(expect).epsilon(1e-6));
  CHECK(r.loss == Approx(expect / 29).epsilon(1e-6));
  // The batch changes only the rounding; seq_len picks the window (4: seven full windows and one of 1).
  CHECK(evaluate_tokens(model, ids, {.seq_len = 0, .batch = 1}).loss == Approx(r.loss).epsilon(1e-6));
  const HeldOutLoss four = evaluate_tokens(model, ids, {.seq_len = 4, .batch = 3});
  CHECK(four.windows == 8);
  CHECK(four.tokens == 29);
  CHECK(EvalOptions::from_json({{"seqLen", 4}, {"batch", 3}}).seq_len == 4);

  CHECK_THROWS_WITH(evaluate_tokens(model, std::vector<int32_t>{3}), Contains("at least 2 tokens"));
  CHECK_THROWS_WITH(evaluate_tokens(model, std::vector<int32_t>{3, 11}),
                    Contains("token id 11 at position 1 is outside the vocabulary [0, 11)"));
  CHECK_THROWS_WITH(evaluate_tokens(model, ids, {.seq_len = 9, .batch = 8}), Contains("seqLen must be in [0, context_length = 8]"));
  CHECK_THROWS_WITH(evaluate_tokens(model, ids, {.seq_len = 0, .batch = 0}), Contains("batch must be at least 1"));
  CHECK_THROWS_WITH(EvalOptions::from_json({{"window", 4}}), Contains("unknown config key 'window'"));
}
