// Tests for GPTModel's training passes (gpt_training.cpp): the loss and the gradient of every parameter of
// the tiny GPT variants (pre/post-norm x qkv bias x tied/untied, and with dropout masks shared with PyTorch)
// against PyTorch autograd (tests/golden/grad_gpt.json), within 1e-4 of each tensor's scale; gradient
// accumulation; seeded dropout; and bad input.
#include <catch2/catch.hpp>
#include <cmath>

#include "blockscope/error.hpp"
#include "blockscope/gpt_model.hpp"
#include "support/configs.hpp"
#include "support/golden.hpp"

using namespace blockscope;
using test::small_gpt;

namespace {
constexpr float kGradRel = 1e-4f;  // of each tensor's largest |value|

void load_masks(const golden::Case& c, GPTRunState& rs, double p) {
  const auto fill = [&](const std::string& name, float* dst) {
    const auto m = golden::dropout_scale(c, name, p);
    std::copy(m.begin(), m.end(), dst);
  };
  fill("mask.drop_emb", rs.emb_mask);
  for (size_t l = 0; l < rs.layers.size(); ++l) {
    const std::string pre = "mask.trf_blocks." + std::to_string(l) + ".";
    fill(pre + "att", rs.layers[l].att.att_mask);
    fill(pre + "drop1", rs.layers[l].drop1_mask);
    fill(pre + "drop2", rs.layers[l].drop2_mask);
  }
}

}  // namespace

TEST_CASE("tiny GPT loss and every parameter gradient match PyTorch in every variant", "[training][golden]") {
  for (const auto& c : golden::cases("grad_gpt.json")) {
    SECTION(c.name) {
      const GPTConfig cfg = GPTConfig::from_json(c.config());
      GPTModel model(cfg);
      c.load_params(model.params());
      Shape shape;
      const auto ids = c.input_ids("ids", &shape);
      const auto targets = c.input_ids("targets", nullptr);
      const bool dropout = cfg.drop_rate > 0;
      GPTRunState rs(cfg, shape[0], shape[1], dropout);
      if (dropout) load_masks(c, rs, cfg.drop_rate);
      const double loss = model.forward_loss(rs, ids, targets);
      golden::check_close("GPT loss", std::vector<float>{static_cast<float>(loss)}, c.output("loss"));
      golden::check_close("GPT logits (training pass)", std::span<const float>(rs.logits, c.output("logits").numel()),
                          c.output("logits"), golden::kLogitsAtol, 0.0f);
      ParamArena grads = ParamArena::zeros_like(model.params());
      model.backward(rs, grads);
      const int n = golden::check_grads("GPT gradients (scaled)", c, grads, kGradRel);
      CHECK(n == static_cast<int>(model.params().params().size()));
    }
  }
}

TEST_CASE("the training forward without dropout gives the inference logits bit for bit", "[training]") {
  const auto& c = golden::find_case("grad_gpt.json", "gpt_post_bias_untied");
  GPTModel model(GPTConfig::from_json(c.config()));
  c.load_params(model.params());
  Shape shape;
  const auto ids = c.input_ids("ids", &shape);
  GPTRunState rs(model.config(), shape[0], shape[1], false);
  model.forward_loss(rs, ids, c.input_ids("targets", nullptr));
  const Tensor logits = model.forward(ids, shape[0], shape[1]);
  for (int64_t i = 0; i < logits.numel(); ++i) REQUIRE(rs.logits[i] == logits.data[i]);
}

TEST_CASE("backward accumulates: two scaled micro-batches give the sum of their gradients", "[training]") {
  GPTModel model(small_gpt(20, 8, 8, 2, 2), 5);
  const std::vector<int32_t> a = {1, 2, 3, 4, 5, 6}, ta = {2, 3, 4, 5, 6, 7};
  const std::vector<int32_t> b = {9, 8, 7, 6, 5, 4}, tb = {8, 7, 6, 5, 4, 3};
  GPTRunState rs(model.config(), 1, 6, false);
  ParamArena ga = ParamArena::zeros_like(model.params()), gb = ParamArena::zeros_like(model.params());
  ParamArena both = ParamArena::zeros_like(model.params());
  model.forward_loss(rs, a, ta);
  model.backward(rs, ga);
  model.forward_loss(rs, b, tb);
  model.backward(rs, gb);
  model.forward_loss(rs, a, ta);
  model.backward(rs, both, 0.5f);
  model.forward_loss(rs, b, tb);
  model.backward(rs, both, 0.5f);
  for (int64_t i = 0; i < both.capacity(); ++i) {
    const float expected = 0.5f * (ga.data()[i] + gb.data()[i]);
    REQUIRE(std::fabs(both.data()[i] - expected) <= 1e-6f + 1e-5f * std::fabs(expected));
  }
}

TEST_CASE("seeded dropout: the same seed gives the same loss, another seed another", "[training]") {
  GPTConfig cfg = small_gpt(20, 8, 8, 2, 2);
  cfg.drop_rate = 0.3;
  GPTModel model(cfg, 7);
  const std::vector<int32_t> ids = {1, 2, 3, 4, 5, 6, 7, 8}, targets = {2, 3, 4, 5, 6, 7, 8, 9};
  GPTRunState rs(cfg, 2, 4, true);
  Rng r1(42), r2(42), r3(43);
  const double l1 = model.forward_loss(rs, ids, targets, &r1);
  const double l2 = model.forward_loss(rs, ids, targets, &r2);
  const double l3 = model.forward_loss(rs, ids, targets, &r3);
  CHECK(l1 == l2);
  CHECK(l1 != l3);
  int zeros = 0;
  for (int64_t i = 0; i < 2 * 4 * cfg.emb_dim; ++i) zeros += rs.emb_mask[i] == 0.0f;
  CHECK(zeros > 0);  // about 30 % of 64
  CHECK(zeros < 40);
}

TEST_CASE("training passes reject bad targets, ids and a backward without a forward", "[training][errors]") {
  GPTModel model(small_gpt(20, 8, 8, 2, 2), 1);
  GPTRunState rs(model.config(), 1, 4, false);
  const std::vector<int32_t> ids = {1, 2, 3, 4};
  CHECK_THROWS_WITH(model.forward_loss(rs, ids, std::vector<int32_t>{1, 2, 3}),
                    Catch::Contains("expected 4 targets (one per token), got 3"));
  CHECK_THROWS_WITH(model.forward_loss(rs, ids, std::vector<int32_t>{1, 2, 3, 20}),
                    Catch::Contains("target id 20 at position 3 is outside the vocabulary [0, 20)"));
  CHECK_THROWS_WITH(model.forward_loss(rs, std::vector<int32_t>{1, 2, -1, 4}, ids),
                    Catch::Contains("token id -1 at position 2"));
  ParamArena grads = ParamArena::zeros_like(model.params());
  CHECK_THROWS_WITH(model.backward(rs, grads), Catch::Contains("needs a forward_loss"));
  CHECK_THROWS_WITH(GPTRunState(model.config(), 1, 9, false), Catch::Contains("T <= context_length (8)"));
  ParamArena wrong(3);
  model.forward_loss(rs, ids, ids);
  CHECK_THROWS_WITH(model.backward(rs, wrong), Catch::Contains("gradient arena layout differs"));
}
