// Tests for feed_forward.hpp: the lesson's d=2 example, parameter counts, goldens, position-wise behaviour.
#include <catch2/catch.hpp>

#include "blockscope/error.hpp"
#include "blockscope/feed_forward.hpp"
#include "blockscope/multi_head_attention.hpp"
#include "blockscope/transformer_block.hpp"
#include "support/golden.hpp"

using namespace blockscope;

namespace {
// Lesson LM4-T3's worked example: d = 2, H = 4, W1 = [[1,0],[0,1],[1,1],[1,-1]], b1 = 0, W2 reads the first
// two hidden units, b2 = 0.
FeedForward lesson_ffn(Activation act) {
  FeedForward ff(FeedForwardConfig{2, 4, act, true});
  const float w1[] = {1, 0, 0, 1, 1, 1, 1, -1};
  const float w2[] = {1, 0, 0, 0, 0, 1, 0, 0};
  std::copy(std::begin(w1), std::end(w1), ff.fc().weight());
  std::fill(ff.fc().bias(), ff.fc().bias() + 4, 0.0f);
  std::copy(std::begin(w2), std::end(w2), ff.proj().weight());
  std::fill(ff.proj().bias(), ff.proj().bias() + 2, 0.0f);
  return ff;
}
}  // namespace

TEST_CASE("the lesson's d=2 FFN maps (1,-2) to (0.8412,-0.0454) with GELU and (1,0) with ReLU", "[feed_forward][lesson]") {
  FeedForward g = lesson_ffn(Activation::GeluTanh);
  const Tensor y = g.forward(Tensor({1, 2}, {1, -2}));
  CHECK(y.data[0] == Approx(0.8412f).margin(5e-5));
  CHECK(y.data[1] == Approx(-0.0454f).margin(5e-5));
  // hidden = [1, -2, -1, 3] before GELU
  CHECK(g.last_hidden_pre().data == std::vector<float>{1, -2, -1, 3});
  FeedForward r = lesson_ffn(Activation::Relu);
  const Tensor yr = r.forward(Tensor({1, 2}, {1, -2}));
  CHECK(yr.data == std::vector<float>{1, 0});
}

TEST_CASE("FFN parameter counts: 148 for FFN(4,16) and 8d^2+5d = 4,722,432 at d = 768", "[feed_forward][lesson]") {
  CHECK(FeedForward::num_params({4, 16, Activation::GeluTanh, true}) == 148);
  CHECK(FeedForward(4, 4).own_params()->used() == 148);
  CHECK(FeedForward::num_params({768, 3072, Activation::GeluTanh, true}) == 4722432);
  CHECK(FeedForward::num_params({768, 3072, Activation::GeluTanh, true}) == 8 * 768 * 768 + 5 * 768);
}

TEST_CASE("FFN cost formulas: 16d^2 FLOPs per token and B n 4d hidden entries", "[feed_forward][lesson]") {
  const FeedForwardConfig gpt2{768, 3072, Activation::GeluTanh, true};
  CHECK(FeedForward::flops_per_token(gpt2) == 16 * 768 * 768);
  CHECK(FeedForward::hidden_entries(gpt2, 8, 1024) == 25165824);  // the lesson's 25.2M
  // The FFN's share of a block's two sublayers (attention 4d^2 + 4d with biases): 66.7%.
  const double attention = 4.0 * 768 * 768 + 4 * 768;
  CHECK(FeedForward::num_params(gpt2) / (FeedForward::num_params(gpt2) + attention) == Approx(0.667).margin(5e-4));
  CHECK_THROWS_WITH(FeedForward::hidden_entries(gpt2, 0, 5), Catch::Contains("got B=0 n=5"));
}

TEST_CASE("attention's FLOPs: 8d^2 for the projections, 4nd for the scores — the FFN dominates below 2d tokens",
          "[feed_forward][lesson]") {
  BlockConfig gpt2;
  gpt2.emb_dim = 768;
  gpt2.context_length = 1024;
  gpt2.n_heads = 12;
  CHECK(MultiHeadAttention::projection_flops_per_token(gpt2.attention()) == 8 * 768 * 768);
  CHECK(MultiHeadAttention::score_flops_per_token(gpt2.attention(), 1024) == 4 * 1024 * 768);
  // 16d^2 > 8d^2 + 4nd exactly while n < 2d (lesson LM4-T3: "shorter than about 2d").
  CHECK(gpt2.ffn_dominates_below_tokens() == 2 * 768);
  gpt2.ffn_hidden = 768;  // a 1x-wide FFN (4d^2) never costs more than the projections alone
  CHECK(gpt2.ffn_dominates_below_tokens() == 0);
  CHECK_THROWS_WITH(MultiHeadAttention::score_flops_per_token(gpt2.attention(), 0), Catch::Contains("got 0"));
  // Without its biases the FFN has 8d^2 parameters, and the key round-trips (written only when off).
  gpt2.ffn_hidden = 0;
  gpt2.ffn_bias = false;
  CHECK(FeedForward::num_params(gpt2.feed_forward()) == 8 * 768 * 768);
  CHECK(BlockConfig::from_json(gpt2.to_json()).ffn_bias == false);
  CHECK(TransformerBlock::num_params(gpt2) == TransformerBlock::num_params(BlockConfig::from_json(gpt2.to_json())));
  gpt2.ffn_bias = true;
  CHECK(!gpt2.to_json().contains("ffn_bias"));
}

TEST_CASE("feed-forward matches the PyTorch nn.Sequential on every golden case", "[feed_forward][golden]") {
  for (const auto& c : golden::cases("feed_forward.json")) {
    SECTION(c.name) {
      FeedForward ff(FeedForwardConfig::from_json(c.config()));
      c.load_params(*ff.own_params());
      const Tensor y = ff.forward(c.input("x"));
      golden::check_close("FeedForward", y, c.output("y"));
      golden::check_close("FeedForward hidden", ff.last_hidden_pre(), c.output("hidden_pre"));
      golden::check_close("FeedForward hidden", ff.last_hidden_post(), c.output("hidden_post"));
    }
  }
}

TEST_CASE("the FFN is position-wise: changing token 0 changes no other position", "[feed_forward]") {
  FeedForward ff(8, 4, true, Activation::GeluTanh, 5);
  Tensor x({1, 4, 8});
  for (int i = 0; i < 32; ++i) x.data[i] = 0.1f * static_cast<float>(i % 7) - 0.3f;
  const Tensor y1 = ff.forward(x);
  for (int c = 0; c < 8; ++c) x.data[c] += 1.5f;
  const Tensor y2 = ff.forward(x);
  bool token0_changed = false;
  for (int c = 0; c < 8; ++c) token0_changed |= y1.data[c] != y2.data[c];
  CHECK(token0_changed);
  for (int i = 8; i < 32; ++i) REQUIRE(y1.data[i] == y2.data[i]);
}

TEST_CASE("feed-forward rejects bad sizes and mismatched input", "[feed_forward][errors]") {
  CHECK_THROWS_WITH(FeedForward(0), Catch::Contains("emb_dim must be positive, got 0"));
  CHECK_THROWS_WITH(FeedForward(4, -1), Catch::Contains("expansion must be positive, got -1"));
  FeedForward ff(4);
  CHECK_THROWS_WITH(ff.forward(Tensor({2, 3})), Catch::Contains("last dimension of 4") && Catch::Contains("(2, 3)"));
}
