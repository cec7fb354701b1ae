// Tests for training_run.hpp: the one training loop evaluates every eval_every steps and after the schedule's
// last, advances one micro-batch (or evaluation) per call, stops after its steps, on a cancel at the next update
// boundary, on a non-finite update (putting back the weights after update k-2, as a twin trained k-2 steps has
// them) and on the loss ceiling (its stretch carried across begin() calls); bad options are named; a resumed
// run's optimizer state must match its weights (checkpoint.hpp's fingerprint).
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "blockscope/checkpoint.hpp"
#include "blockscope/error.hpp"
#include "blockscope/training_run.hpp"
#include "support/configs.hpp"

using namespace blockscope;
using Catch::Contains;
using test::small_gpt;

namespace {
std::vector<int32_t> stream(int n, int vocab) {
  std::vector<int32_t> t;
  for (int i = 0; i < n; ++i) t.push_back((i * 7 + i / 5) % vocab);
  return t;
}

std::vector<float> weights(const GPTModel& m) { return {m.params().data(), m.params().data() + m.params().capacity()}; }

TrainConfig config(int64_t steps, int64_t grad_accum = 1) {
  TrainConfig tc;
  tc.steps = steps;
  tc.batch_size = 2;
  tc.grad_accum = grad_accum;
  tc.eval_batches = 2;
  return tc;
}
}  // namespace

TEST_CASE("a run evaluates every eval_every steps and after the schedule's last, as step() would train", "[training_run]") {
  const GPTConfig cfg = small_gpt(16, 8, 8, 2, 2);
  GPTModel a(cfg, 4), b(cfg, 4);
  Trainer run_trainer(a, config(6), TokenData(stream(400, 16), 0.2, 8, 16));
  Trainer plain(b, config(6), TokenData(stream(400, 16), 0.2, 8, 16));
  TrainingRun run(run_trainer);
  run.begin({.steps = 6, .eval_every = 4, .stop_above = {}});
  std::vector<RunStep> seen;
  const RunOutcome& out = run.run([&](const RunStep& s) {
    seen.push_back(s);
    return true;
  });
  REQUIRE(seen.size() == 6);
  for (int s = 0; s < 6; ++s) {
    const StepResult r = plain.step();
    CHECK(seen[s].result.step == s + 1);
    CHECK(seen[s].result.loss == r.loss);
    CHECK(seen[s].evaluated() == (s + 1 == 4 || s + 1 == 6));
    if (seen[s].evaluated()) CHECK(seen[s].val_loss == plain.evaluate());
  }
  CHECK(out.reason == StopReason::Steps);
  CHECK(out.steps == 6);
  CHECK(out.weights_step == 6);
  CHECK(weights(a) == weights(b));
  CHECK_THROWS_WITH(run.advance(), Contains("finished"));
  // Without validation data nothing is evaluated, and asking for evaluations is refused up front.
  Trainer no_val(b, config(6), TokenData(stream(400, 16), 0.0, 8, 16));
  TrainingRun other(no_val);
  CHECK_THROWS_WITH(other.begin({.steps = 2, .eval_every = 1, .stop_above = {}}), Contains("needs validation data"));
  other.begin({.steps = 6, .eval_every = 0, .stop_above = {}});
  CHECK(other.run([](const RunStep& s) { return !s.evaluated(); }).reason == StopReason::Steps);
}

TEST_CASE("a run advances one micro-batch or one evaluation per call — cancel ends it at the next update",
          "[training_run]") {
  const GPTConfig cfg = small_gpt(16, 8, 8, 2, 1);
  GPTModel model(cfg, 2);
  Trainer trainer(model, config(4, 3), TokenData(stream(400, 16), 0.2, 8, 16));
  TrainingRun run(trainer);
  run.begin({.steps = 3, .eval_every = 1, .stop_above = {}});
  CHECK(run.advance() == nullptr);
  CHECK(run.advance() == nullptr);
  CHECK_FALSE(run.evaluating_next());
  run.cancel();  // mid-update: it finishes, with its evaluation
  CHECK(run.advance() == nullptr);
  CHECK(run.evaluating_next());
  const RunStep* s = run.advance();
  REQUIRE(s != nullptr);
  CHECK(s->result.step == 1);
  CHECK(s->evaluated());
  CHECK(run.finished());
  CHECK(run.outcome().reason == StopReason::Cancelled);
  CHECK(run.outcome().steps == 1);
  // A cancel at an update boundary ends the run at once; begin() starts afresh.
  run.begin({.steps = 2, .eval_every = 0, .stop_above = {}});
  run.cancel();
  CHECK(run.finished());
  CHECK(run.outcome().reason == StopReason::Cancelled);
  CHECK(run.outcome().steps == 0);
  // on_step returning false cancels; a run of 0 steps is finished before it starts.
  run.begin({.steps = 3, .eval_every = 0, .stop_above = {}});
  CHECK(run.run([](const RunStep&) { return false; }).steps == 1);
  run.begin({.steps = 0, .eval_every = 0, .stop_above = {}});
  CHECK(run.finished());
  CHECK(trainer.steps_done() == 2);
}

TEST_CASE("a diverged run ends with the last weights that gave a finite loss", "[training_run][errors]") {
  const GPTConfig cfg = small_gpt(16, 8, 8, 2, 2);
  TrainConfig tc = config(50);
  tc.lr = 1e6;  // diverges within a few steps
  tc.clip = 0.0;
  GPTModel model(cfg, 7);
  Trainer trainer(model, tc, TokenData(stream(400, 16), 0.0, 8, 16));
  TrainingRun run(trainer);
  run.begin({.steps = 50, .eval_every = 0, .stop_above = {}});
  int64_t last = 0;
  run.run([&](const RunStep& s) {
    last = s.result.step;
    return true;
  });
  const RunOutcome& out = run.outcome();
  REQUIRE(out.reason == StopReason::Diverged);
  INFO("diverged at step " << out.diverged_at);
  CHECK(out.diverged_at == last);
  REQUIRE(out.diverged_at >= 2);
  CHECK(out.rolled_back);
  CHECK(out.weights_finite);
  CHECK(out.weights_step == out.diverged_at - 2);
  // A twin trained exactly weights_step steps holds the same weights, bit for bit.
  GPTModel twin(cfg, 7);
  Trainer twin_trainer(twin, tc, TokenData(stream(400, 16), 0.0, 8, 16));
  for (int64_t s = 0; s < out.weights_step; ++s) REQUIRE(twin_trainer.step().finite);
  CHECK(weights(model) == weights(twin));
  CHECK(trainer.previous_weights_step() == -1);  // put back once
  CHECK_THROWS_WITH(trainer.restore_previous_weights(), Contains("no earlier weights"));
}

TEST_CASE("a run puts back the weights its trainer kept, and has none when the first update is non-finite",
          "[training_run][errors]") {
  const GPTConfig cfg = small_gpt(8, 4, 4, 1, 1);
  const auto poison = [](GPTModel& m) { m.params().get("trf_blocks.0.norm1.scale")[0] = std::numeric_limits<float>::infinity(); };
  const auto two_steps = [](Trainer& t) {
    TrainingRun run(t);
    run.begin({.steps = 2, .eval_every = 0, .stop_above = {}});
    return run.run([](const RunStep&) { return true; });
  };
  GPTModel model(cfg, 1);
  Trainer trainer(model, config(3), TokenData(stream(64, 8), 0.0, 4, 8));
  REQUIRE(trainer.step().finite);  // update 1, outside the run: the trainer keeps the weights before it
  poison(model);
  const RunOutcome out = two_steps(trainer);
  CHECK(out.reason == StopReason::Diverged);
  CHECK(out.diverged_at == 2);
  // The weights after update 1 gave the non-finite loss; those after update 0 (k - 2) are put back, poison gone.
  CHECK(out.rolled_back);
  CHECK(out.weights_step == 0);
  CHECK(weights(model) == weights(GPTModel(cfg, 1)));

  GPTModel fresh(cfg, 1);
  poison(fresh);
  Trainer first(fresh, config(3), TokenData(stream(64, 8), 0.0, 4, 8));
  const RunOutcome out2 = two_steps(first);
  CHECK(out2.reason == StopReason::Diverged);
  CHECK(out2.diverged_at == 1);
  CHECK_FALSE(out2.rolled_back);
  CHECK_FALSE(out2.weights_finite);
  CHECK(out2.weights_step == 0);
}

TEST_CASE("the loss ceiling stops a run after its stretch, counted across begin() calls", "[training_run]") {
  const GPTConfig cfg = small_gpt(16, 8, 8, 2, 1);
  GPTModel model(cfg, 3);
  Trainer trainer(model, config(20), TokenData(stream(400, 16), 0.0, 8, 16));
  TrainingRun run(trainer);
  const LossCeiling every{-1.0, 3, 2};  // every loss is above -1: steps 3, 4, 5 make the stretch
  RunOutcome out;
  for (int call = 0; call < 10 && out.reason != StopReason::LossAbove; ++call) {
    run.begin({.steps = 1, .eval_every = 0, .stop_above = every});
    out = run.run([](const RunStep&) { return true; });
  }
  CHECK(out.reason == StopReason::LossAbove);
  CHECK(trainer.steps_done() == 5);
  CHECK(out.diverged_at == 3);
  CHECK_FALSE(out.rolled_back);
  CHECK(out.weights_step == 5);
  // A ceiling no loss reaches never stops the run; a changed ceiling starts a new stretch.
  run.begin({.steps = 3, .eval_every = 0, .stop_above = {1e9, 1, 0}});
  CHECK(run.run([](const RunStep&) { return true; }).reason == StopReason::Steps);
}

TEST_CASE("run options are read from the JavaScript keys and bad values are named", "[training_run][errors]") {
  const RunOptions o = RunOptions::from_json({{"steps", 5}, {"evalEvery", 2}, {"stopAbove", {{"loss", 5.5}, {"steps", 20}, {"after", 5}}}});
  CHECK(o.steps == 5);
  CHECK(o.eval_every == 2);
  CHECK(o.stop_above == LossCeiling{5.5, 20, 5});
  CHECK(RunOptions::from_json(nlohmann::json::object()).steps == 1);
  CHECK_THROWS_WITH(RunOptions::from_json({{"step", 5}}), Contains("unknown config key 'step'"));
  CHECK_THROWS_WITH(RunOptions::from_json({{"steps", -1}}), Contains("steps must be >= 0, got -1"));
  CHECK_THROWS_WITH(RunOptions::from_json({{"evalEvery", 1.5}}), Contains("evalEvery"));
  CHECK_THROWS_WITH(RunOptions::from_json({{"stopAbove", {{"steps", 3}}}}), Contains("missing 'loss'"));
  CHECK_THROWS_WITH(RunOptions::from_json({{"stopAbove", {{"loss", 1}, {"steps", -3}}}}), Contains("stopAbove.steps"));
  CHECK(std::string(stop_reason_name(StopReason::LossAbove)) == "loss_above");
}

TEST_CASE("an optimizer state resumes only next to the weights it was saved with", "[training_run][checkpoint]") {
  // The fingerprint is FNV-1a 64 of the float32 bytes: 1.0f, -2.5f -> 0x09e629ee2dfdb3f8 (Python's struct +
  // the reference loop).
  ParamArena tiny(2);
  tiny.take("x", {2});
  tiny.get("x")[0] = 1.0f;
  tiny.get("x")[1] = -2.5f;
  CHECK(weights_fingerprint(tiny) == "fnv1a64:09e629ee2dfdb3f8");

  const GPTConfig cfg = small_gpt(16, 8, 8, 2, 1);
  GPTModel model(cfg, 4);
  Trainer trainer(model, config(6), TokenData(stream(400, 16), 0.2, 8, 16));
  trainer.step();
  trainer.step();
  const std::vector<uint8_t> state = save_training_state(trainer.optimizer(), model.params());
  const std::map<std::string, std::string> at2 = {{"step", "2"}};
  CHECK(check_training_state(state, model.params(), at2).empty());
  CHECK(check_training_state(state, model.params(), {}).empty());  // no step in the model file: the fingerprint
  const std::vector<float> saved = weights(model);

  trainer.step();  // the weights of a later save next to this state: a save killed between its renames
  CHECK_THROWS_WITH(
      check_training_state(state, model.params(), {{"step", "3"}}),
      Contains("the optimizer state is from step 2 but model.safetensors holds the weights after step 3") &&
          Contains("different saves"));
  std::copy(saved.begin(), saved.end(), model.params().data());
  model.params().data()[5] = std::nextafter(model.params().data()[5], 1e9f);  // one ulp of one weight
  CHECK_THROWS_WITH(check_training_state(state, model.params(), at2),
                    Contains("holds the weights after step 2 (weights fingerprint fnv1a64:") &&
                        Contains("saved with fnv1a64:"));

  // A state from before fingerprints: nothing to compare, so accepted with a warning (steps must still agree).
  const std::vector<uint8_t> legacy = trainer.optimizer().save_state();
  CHECK_THAT(check_training_state(legacy, model.params(), {{"step", "3"}}), Contains("cannot be checked"));
  CHECK_THROWS_WITH(check_training_state(legacy, model.params(), at2), Contains("is from step 3 but"));
  CHECK_THROWS_WITH(check_training_state(state, model.params(), {{"step", "x"}}), Contains("is not an integer"));
}

TEST_CASE("training counts beyond their limits are refused by name, not overflowed", "[training_run][errors]") {
  const int64_t huge = std::numeric_limits<int64_t>::max();
  CHECK_THROWS_WITH(TrainConfig::from_json({{"grad_accum", huge}}),
                    Contains("grad_accum must be at most 1000000, got 9223372036854775807"));
  CHECK_THROWS_WITH(TrainConfig::from_json({{"steps", huge}}), Contains("steps must be at most 1000000000"));
  CHECK_THROWS_WITH(TrainConfig::from_json({{"eval_batches", huge}}), Contains("eval_batches must be at most 1000000"));
  CHECK_THROWS_WITH(TrainConfig::from_json({{"seq_len", huge}}), Contains("seq_len must be in [0, 1048576]"));
  CHECK_THROWS_WITH(TokenData(stream(40, 16), 0.0, huge, 16), Contains("sequence length must be in [1, 1048576]"));
  CHECK(TrainConfig::from_json({{"grad_accum", TrainConfig::kMaxGradAccum}, {"steps", TrainConfig::kMaxSteps}})
            .grad_accum == TrainConfig::kMaxGradAccum);
}
