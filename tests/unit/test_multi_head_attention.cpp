// Tests for multi_head_attention.hpp: goldens (causal, non-causal, d_in != d_out), causality, bad input.
#include <catch2/catch.hpp>

#include "blockscope/error.hpp"
#include "blockscope/multi_head_attention.hpp"
#include "support/golden.hpp"

using namespace blockscope;


TEST_CASE("multi-head attention matches the book's MultiHeadAttention in PyTorch", "[attention][golden]") {
  for (const auto& c : golden::cases("attention.json")) {
    SECTION(c.name) {
      MultiHeadAttention mha(AttentionConfig::from_json(c.config()));
      c.load_params(*mha.own_params());
      const Tensor y = mha.forward(c.input("x"));
      golden::check_close("MultiHeadAttention", y, c.output("y"));
      golden::check_close("attention weights", mha.last_attn_weights(), c.output("attn_weights"));
    }
  }
}

TEST_CASE("causal attention: changing token t changes no output before t", "[attention]") {
  AttentionConfig cfg{8, 8, 6, 2, true, true, true, 0.0};
  MultiHeadAttention mha(cfg, 3);
  Tensor x({1, 6, 8});
  for (int i = 0; i < 48; ++i) x.data[i] = static_cast<float>((i * 37) % 11) / 11.0f - 0.5f;
  const Tensor y1 = mha.forward(x);
  const int t = 3;
  for (int c = 0; c < 8; ++c) x.data[t * 8 + c] += 2.0f;
  const Tensor y2 = mha.forward(x);
  for (int i = 0; i < t * 8; ++i) REQUIRE(y1.data[i] == y2.data[i]);
  bool later_changed = false;
  for (int i = t * 8; i < 48; ++i) later_changed |= y1.data[i] != y2.data[i];
  CHECK(later_changed);
}

TEST_CASE("attention rejects indivisible heads, long sequences and wrong shapes", "[attention][errors]") {
  CHECK_THROWS_WITH(MultiHeadAttention(AttentionConfig{8, 10, 4, 3}), Catch::Contains("d_out (10) must be divisible by num_heads (3)"));
  CHECK_THROWS_WITH(MultiHeadAttention(AttentionConfig{8, 8, 0, 2}), Catch::Contains("context_length must be positive, got 0"));
  CHECK_THROWS_WITH(MultiHeadAttention(AttentionConfig{8, 8, 4, -2}), Catch::Contains("num_heads must be positive, got -2"));
  MultiHeadAttention mha(AttentionConfig{8, 8, 4, 2});
  CHECK_THROWS_WITH(mha.forward(Tensor({1, 5, 8})), Catch::Contains("sequence length 5 exceeds context_length 4"));
  CHECK_THROWS_WITH(mha.forward(Tensor({1, 3, 7})), Catch::Contains("d_in = 8") && Catch::Contains("(1, 3, 7)"));
  CHECK_THROWS_WITH(mha.forward(Tensor({3, 8})), Catch::Contains("(B, T, d_in)"));
  CHECK(mha.forward(Tensor({1, 4, 8})).shape == Shape{1, 4, 8});  // still usable after the errors
}
