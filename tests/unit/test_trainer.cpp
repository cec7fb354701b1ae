// Tests for trainer.hpp: 200 steps of a small GPT reproduce PyTorch's loss curve (same weights, batches,
// AdamW, clipping and schedule; tests/golden/train_curve.json) within 1e-3 per step for the first 50 steps,
// also post-norm with gradient accumulation; the data loader is seeded; divergence skips the update; bad
// configs and data are rejected by name.
#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>

#include "blockscope/error.hpp"
#include "blockscope/trainer.hpp"
#include "support/configs.hpp"
#include "support/golden.hpp"

using namespace blockscope;
using test::small_gpt;

namespace {
// The golden's config minus what is not a training setting (the model, the list of decayed tensors).
TrainConfig train_config_of(nlohmann::json j) {
  j.erase("model");
  j.erase("decay_params");
  j["val_fraction"] = 0.0;
  return TrainConfig::from_json(j);
}
}  // namespace

TEST_CASE("training reproduces PyTorch's loss curve step for step", "[trainer][golden]") {
  for (const char* name : {"train_pre_200", "train_post_accum2"}) {
    SECTION(name) {
      const auto& c = golden::find_case("train_curve.json", name);
      const TrainConfig tc = train_config_of(c.config());
      GPTModel model(GPTConfig::from_json(c.config().at("model")));
      c.load_params(model.params());
      // The golden's decayed tensors are exactly those our default rule picks.
      const auto decayed = c.config().at("decay_params").get<std::vector<std::string>>();
      for (const auto& p : model.params().params())
        CHECK((std::find(decayed.begin(), decayed.end(), p.name) != decayed.end()) == decays(p));
      const auto tokens = c.input_ids("tokens", nullptr);
      Shape shape;
      const auto starts = c.input_ids("starts", &shape);
      Trainer trainer(model, tc, TokenData(tokens, 0.0, tc.seq_len, model.config().vocab_size));
      const Tensor losses = c.output("losses"), norms = c.output("grad_norms"), lrs = c.output("lrs");
      const int64_t T = tc.seq_len, per_step = shape[1];
      std::vector<int32_t> ids(per_step * T), targets(per_step * T);
      double worst50 = 0.0, worst = 0.0;
      for (int64_t s = 0; s < tc.steps; ++s) {
        for (int64_t b = 0; b < per_step; ++b)
          for (int64_t t = 0; t < T; ++t) {
            const auto start = static_cast<size_t>(starts[s * per_step + b]);
            ids[b * T + t] = tokens[start + t];
            targets[b * T + t] = tokens[start + t + 1];
          }
        const StepResult r = trainer.step(ids, targets);
        REQUIRE(r.finite);
        REQUIRE(r.step == s + 1);
        const double d = std::fabs(r.loss - losses.data[s]);
        if (s < 50) worst50 = std::max(worst50, d);
        worst = std::max(worst, d);
        CHECK(std::fabs(r.lr - lrs.data[s]) <= 1e-6 * lrs.data[s]);
        if (s < 50) CHECK(std::fabs(r.grad_norm - norms.data[s]) <= 1e-3 * norms.data[s]);
      }
      golden::check_close("loss curve, first 50 steps", std::vector<float>{static_cast<float>(worst50)},
                          Tensor({1}, {0.0f}), 1e-3f, 0.0f);
      INFO("largest loss difference over all " << tc.steps << " steps: " << worst);
      CHECK(worst < 1e-2);
      CHECK(losses.data.back() < losses.data.front() - 0.5f);  // it learned something
    }
  }
}

TEST_CASE("a step reports per-layer gradient norms that add up to the global norm", "[trainer]") {
  const GPTConfig cfg = small_gpt(16, 8, 8, 2, 3);
  GPTModel model(cfg, 3);
  std::vector<int32_t> tokens;
  for (int i = 0; i < 400; ++i) tokens.push_back((i * 7 + i / 5) % 16);
  TrainConfig tc;
  tc.steps = 5;
  tc.batch_size = 2;
  tc.clip = 0.0;
  Trainer trainer(model, tc, TokenData(tokens, 0.1, 8, 16));
  const StepResult r = trainer.step();
  REQUIRE(r.layer_grad_norms.size() == 5);
  CHECK(r.layer_grad_norms[0].name == "embeddings");
  CHECK(r.layer_grad_norms[1].name == "trf_blocks.0");
  CHECK(r.layer_grad_norms[3].name == "trf_blocks.2");
  CHECK(r.layer_grad_norms[4].name == "head");
  double sq = 0.0;
  for (const auto& n : r.layer_grad_norms) sq += n.norm * n.norm;
  CHECK(std::sqrt(sq) == Approx(r.grad_norm).epsilon(1e-9));
  const double val = trainer.evaluate();
  CHECK(std::isfinite(val));
  CHECK(trainer.evaluate() == val);  // fixed validation windows
  CHECK(trainer.memory_bytes() > 4 * 3 * model.num_parameters());
}

TEST_CASE("the same seed gives the same losses — another seed another data order", "[trainer]") {
  const GPTConfig cfg = small_gpt(16, 8, 8, 2, 1, 0.1);
  std::vector<int32_t> tokens;
  for (int i = 0; i < 300; ++i) tokens.push_back((i * 5 + i / 3) % 16);
  const auto run = [&](uint64_t seed) {
    GPTModel model(cfg, 9);
    TrainConfig tc;
    tc.steps = 4;
    tc.batch_size = 3;
    tc.seed = seed;
    Trainer trainer(model, tc, TokenData(tokens, 0.1, 8, 16));
    std::vector<double> losses;
    for (int s = 0; s < 4; ++s) losses.push_back(trainer.step().loss);
    return losses;
  };
  CHECK(run(5) == run(5));
  CHECK(run(5) != run(6));
}

TEST_CASE("a non-finite loss skips the update and keeps the last good weights", "[trainer][errors]") {
  const GPTConfig cfg = small_gpt(8, 4, 4, 1, 1);
  GPTModel model(cfg, 1);
  std::vector<int32_t> tokens(64);
  for (size_t i = 0; i < tokens.size(); ++i) tokens[i] = static_cast<int32_t>(i % 8);
  TrainConfig tc;
  tc.steps = 3;
  tc.batch_size = 1;
  Trainer trainer(model, tc, TokenData(tokens, 0.0, 4, 8));
  REQUIRE(trainer.step().finite);
  const std::vector<float> before(model.params().data(), model.params().data() + model.params().capacity());
  model.params().get("trf_blocks.0.norm1.scale")[0] = std::numeric_limits<float>::infinity();
  const StepResult r = trainer.step();
  CHECK_FALSE(r.finite);
  CHECK(trainer.steps_done() == 1);
  model.params().get("trf_blocks.0.norm1.scale")[0] = before[model.params().find("trf_blocks.0.norm1.scale")->offset];
  for (size_t i = 0; i < before.size(); ++i) REQUIRE(model.params().data()[i] == before[i]);
}

TEST_CASE("training configs and data are rejected with the offending value named", "[trainer][errors]") {
  CHECK_THROWS_WITH(TrainConfig::from_json({{"steps", 0}}), Catch::Contains("steps must be at least 1, got 0"));
  CHECK_THROWS_WITH(TrainConfig::from_json({{"lr", -1}}), Catch::Contains("learning rate must be a positive number"));
  CHECK_THROWS_WITH(TrainConfig::from_json({{"lr", 0}}), Catch::Contains("learning rate must be a positive number"));
  CHECK_THROWS_WITH(TrainConfig::from_json({{"stepz", 3}}), Catch::Contains("unknown config key 'stepz'"));
  CHECK_THROWS_WITH(TrainConfig::from_json({{"warmup", 5}, {"steps", 2}}), Catch::Contains("warmup must be in [0, steps = 2]"));
  CHECK_THROWS_WITH(TrainConfig::from_json({{"seed", -1}}), Catch::Contains("seed must be >= 0"));
  CHECK(TrainConfig::from_json(TrainConfig{}.to_json()).to_json() == TrainConfig{}.to_json());
  const std::vector<int32_t> few = {1, 2, 3};
  CHECK_THROWS_WITH(TokenData(few, 0.0, 4, 8), Catch::Contains("the training data has 3 tokens; a sequence length of 4 needs at least 5"));
  CHECK_THROWS_WITH(TokenData(std::vector<int32_t>{1, 2, 9, 3, 4, 5}, 0.0, 4, 8),
                    Catch::Contains("token id 9 at position 2 of the training data is outside the vocabulary [0, 8)"));
  const GPTConfig cfg = small_gpt(8, 4, 4, 1, 1);
  GPTModel model(cfg, 1);
  std::vector<int32_t> tokens(64, 1);
  TrainConfig tc;
  tc.seq_len = 8;
  CHECK_THROWS_WITH(Trainer(model, tc, TokenData(tokens, 0.0, 8, 8)), Catch::Contains("seq_len 8 exceeds the model's context_length 4"));
  tc.seq_len = 4;
  Trainer trainer(model, tc, TokenData(tokens, 0.0, 4, 8));
  CHECK_THROWS_WITH(trainer.step(std::vector<int32_t>{1, 2}, std::vector<int32_t>{1, 2}),
                    Catch::Contains("a step needs grad_accum x batch_size x seq_len = 1 x 8 x 4 token ids"));
  CHECK_THROWS_WITH(trainer.evaluate(), Catch::Contains("there is no validation data"));
}

TEST_CASE("a window stride starts every window at a record boundary, training and validation alike", "[trainer]") {
  // 40 records of 5 tokens: a record's first token is 0, the others 1..4, so a window (T = 4, T + 1 = 5 tokens)
  // is one whole record exactly when it starts with 0 and its targets end with 4.
  std::vector<int32_t> tokens;
  for (int r = 0; r < 40; ++r)
    for (int32_t t = 0; t < 5; ++t) tokens.push_back(t);
  const TokenData data(tokens, 0.25, 4, 8, /*stride=*/5);
  CHECK(data.val().size() == 50);  // floor(200 x 0.25) = 50: whole records (with 0.26 it rounds down to 50 too)
  CHECK(TokenData(tokens, 0.26, 4, 8, 5).val().size() == 50);
  std::vector<int32_t> ragged = tokens;  // a partial record at the end: the split still falls on a record
  ragged.insert(ragged.end(), {0, 1, 2});
  const TokenData split(ragged, 0.25, 4, 8, 5);
  CHECK(split.val().size() == 48);
  CHECK(split.val()[0] == 0);
  Rng rng(7);
  std::vector<int32_t> ids, targets;
  for (int i = 0; i < 20; ++i) {
    data.sample(rng, 8, ids, targets);
    for (int b = 0; b < 8; ++b) {
      CHECK(ids[b * 4] == 0);
      CHECK(targets[b * 4 + 3] == 4);
    }
  }
  for (int64_t i = 0; i < 4; ++i) {
    data.validation_batch(i, 8, ids, targets);
    for (int b = 0; b < 8; ++b) CHECK(ids[b * 4] == 0);
  }
  // Without a stride, windows start anywhere.
  const TokenData anywhere(tokens, 0.0, 4, 8);
  bool other = false;
  for (int i = 0; i < 10; ++i) {
    anywhere.sample(rng, 8, ids, targets);
    for (int b = 0; b < 8; ++b) other = other || ids[b * 4] != 0;
  }
  CHECK(other);
  CHECK_THROWS_WITH(TokenData(tokens, 0.0, 4, 8, 0), Catch::Contains("the window stride must be in [1, "));
  // The training config names the stride too (the CLI's --window-stride, the wasm trainer's window_stride), and a
  // trainer refuses data windowed otherwise.
  CHECK_THROWS_WITH(TrainConfig::from_json({{"window_stride", 0}}), Catch::Contains("window_stride must be at least 1"));
  CHECK(TrainConfig::from_json({{"window_stride", 5}}).to_json().at("window_stride") == 5);
  GPTModel model(small_gpt(8, 4, 4, 1, 1), 1);
  TrainConfig tc;
  tc.window_stride = 5;
  CHECK_THROWS_WITH(Trainer(model, tc, TokenData(tokens, 0.0, 4, 8)),
                    Catch::Contains("the data's windows start at multiples of 1, the training config's window_stride is 5"));
  CHECK_NOTHROW(Trainer(model, tc, TokenData(tokens, 0.0, 4, 8, 5)));
}

TEST_CASE("a run resumed from its weights and optimizer state continues exactly as the uninterrupted run",
          "[trainer]") {
  const GPTConfig cfg = small_gpt(16, 8, 8, 2, 2, 0.1);
  std::vector<int32_t> tokens;
  for (int i = 0; i < 300; ++i) tokens.push_back((i * 5 + i / 3) % 16);
  TrainConfig tc;
  tc.steps = 6;
  tc.batch_size = 2;
  tc.warmup = 2;
  GPTModel whole(cfg, 9);
  Trainer a(whole, tc, TokenData(tokens, 0.1, 8, 16));
  std::vector<double> losses;
  for (int s = 0; s < 6; ++s) losses.push_back(a.step().loss);

  GPTModel first(cfg, 9);
  Trainer b(first, tc, TokenData(tokens, 0.1, 8, 16));
  for (int s = 0; s < 3; ++s) CHECK(b.step().loss == losses[s]);
  GPTModel resumed(cfg, 1);  // other weights, overwritten by the "checkpoint"
  std::copy(first.params().data(), first.params().data() + first.params().capacity(), resumed.params().data());
  Trainer c(resumed, tc, TokenData(tokens, 0.1, 8, 16));
  c.optimizer().load_state(b.optimizer().save_state());
  CHECK(c.steps_done() == 3);
  for (int s = 3; s < 6; ++s) CHECK(c.step().loss == losses[s]);
  for (int64_t i = 0; i < whole.params().capacity(); ++i) REQUIRE(resumed.params().data()[i] == whole.params().data()[i]);
}

TEST_CASE("a training run that would not fit in memory is refused before allocating", "[trainer][errors]") {
  const GPTConfig cfg = small_gpt(256, 1024, 64, 8, 4);
  GPTModel model(cfg, 1, MemoryBudget{MemoryBudget::kPortableBytes});  // the wasm32 budget, on every platform
  std::vector<int32_t> tokens(5000, 3);
  TrainConfig tc;
  tc.batch_size = 64;
  CHECK_THROWS_WITH(Trainer(model, tc, TokenData(tokens, 0.0, 1024, 256)),
                    Catch::Contains("training activations for batch_size 64 x seq_len 1024 needs") &&
                        Catch::Contains("for the gradients, AdamW's two moments and the weights before the last update") &&
                        Catch::Contains("over the 2.0 GiB memory budget by") &&
                        Catch::Contains(": lower batch_size or seq_len"));
  tc.batch_size = int64_t{1} << 40;  // sized in double: over the budget, not an int64 overflow
  CHECK_THROWS_WITH(Trainer(model, tc, TokenData(tokens, 0.0, 1024, 256)),
                    Catch::Contains("memory budget by") && Catch::Contains("lower batch_size"));
  CHECK_THROWS_WITH(TrainConfig::from_json({{"lr", -2}}), Catch::Contains("learning rate must be a positive number, got -2"));
}

TEST_CASE("the trainer asks the model's budget for exactly its activations, state and parameters", "[trainer][errors]") {
  const GPTConfig cfg = small_gpt(64, 16, 16, 2, 1);
  std::vector<int32_t> tokens(500, 3);
  TrainConfig tc;
  tc.batch_size = 3;
  tc.steps = 2;
  const int64_t need = Trainer::activation_bytes(cfg, 3, 16, false) + 5 * GPTModel::parameter_bytes(cfg);
  GPTModel model(cfg, 1, MemoryBudget{need - 1});
  CHECK_THROWS_WITH(Trainer(model, tc, TokenData(tokens, 0.0, 16, 64)), Catch::Contains("memory budget by 1 bytes"));
  model.set_memory_budget(MemoryBudget{need});
  Trainer trainer(model, tc, TokenData(tokens, 0.0, 16, 64));
  CHECK(trainer.memory_bytes() + GPTModel::parameter_bytes(cfg) == need);
  CHECK(trainer.step().finite);
}

TEST_CASE("a step taken in pieces equals step() and the pieces must come in order", "[trainer]") {
  const GPTConfig cfg = small_gpt(16, 8, 8, 2, 1, 0.1);
  std::vector<int32_t> tokens;
  for (int i = 0; i < 300; ++i) tokens.push_back((i * 3 + i / 7) % 16);
  TrainConfig tc;
  tc.steps = 3;
  tc.batch_size = 2;
  tc.grad_accum = 3;
  GPTModel a(cfg, 2), b(cfg, 2);
  Trainer whole(a, tc, TokenData(tokens, 0.1, 8, 16)), pieces(b, tc, TokenData(tokens, 0.1, 8, 16));
  CHECK_THROWS_WITH(pieces.accumulate(), Catch::Contains("needs begin_step() first"));
  CHECK_THROWS_WITH(pieces.finish_step(), Catch::Contains("all 3 micro-batches accumulated, got 0"));
  for (int s = 0; s < 3; ++s) {
    const StepResult r = whole.step();
    pieces.begin_step();
    int calls = 1;
    while (pieces.accumulate()) ++calls;
    CHECK(calls == 3);
    CHECK_THROWS_WITH(pieces.accumulate(), Catch::Contains("call finish_step()"));
    const StepResult p = pieces.finish_step();
    CHECK(p.loss == r.loss);
    CHECK(p.grad_norm == r.grad_norm);
  }
  for (int64_t i = 0; i < a.params().capacity(); ++i) REQUIRE(a.params().data()[i] == b.params().data()[i]);
}
