// Tests for transformer_block.hpp: pre/post-norm blocks and the lesson's encoder block against PyTorch,
// including the inspection values, plus parameter counts and bad input.
#include <catch2/catch.hpp>

#include "blockscope/error.hpp"
#include "blockscope/transformer_block.hpp"
#include "support/golden.hpp"

using namespace blockscope;


// Shared with the GPT tests: compares one block's inspection against keys "<prefix>norm1_in_mean", ...
void check_block_inspection(const golden::Case& c, const BlockInspection& insp, const std::string& prefix) {
  const std::pair<const char*, const RowStats*> stats[] = {
      {"norm1_in", &insp.norm1.in}, {"norm1_out", &insp.norm1.out}, {"norm2_in", &insp.norm2.in}, {"norm2_out", &insp.norm2.out}};
  for (const auto& [key, s] : stats) {
    golden::check_close("inspection LayerNorm stats", s->mean, c.output(prefix + key + "_mean"));
    golden::check_close("inspection LayerNorm stats", s->var, c.output(prefix + key + "_var"));
  }
  golden::check_close("inspection FFN hidden", insp.ffn_hidden_pre, c.output(prefix + "ffn_hidden_pre"));
  golden::check_close("inspection FFN hidden", insp.ffn_hidden_post, c.output(prefix + "ffn_hidden_post"));
  golden::check_close("inspection attention", insp.attn_weights, c.output(prefix + "attn_weights"));
  golden::check_close("inspection residual norm", insp.residual_norm, c.output(prefix + "residual_norm"));
}

TEST_CASE("transformer block matches PyTorch in pre- and post-norm, with inspection", "[transformer_block][golden]") {
  for (const auto& c : golden::cases("transformer_block.json")) {
    SECTION(c.name) {
      TransformerBlock block(BlockConfig::from_json(c.config()));
      c.load_params(*block.own_params());
      BlockInspection insp;
      const Tensor y = block.forward(c.input("x"), &insp);
      golden::check_close("TransformerBlock", y, c.output("y"));
      check_block_inspection(c, insp, "");
      // The step list ends with the block output and names the book's operations in order.
      REQUIRE(insp.steps.size() == 9);
      const bool pre = c.config().at("norm") == "pre";
      CHECK(insp.steps[1].op == (pre ? "norm1" : "att"));
      CHECK(insp.steps[8].op == (pre ? "x + shortcut" : "norm2"));
      golden::check_close("inspection residual norm", insp.steps[8].norm, c.output("residual_norm"));
      // Pre-norm: norm1 reads the block input; post-norm: norm1 reads x + att(x) (step 3).
      golden::check_close("inspection LayerNorm stats", insp.steps[pre ? 0 : 3].mean, c.output("norm1_in_mean"));
    }
  }
}

TEST_CASE("the lesson's EncoderBlock(8,2,32) has 840 parameters and matches PyTorch", "[transformer_block][lesson][golden]") {
  CHECK(EncoderBlock::num_params(8, 2, 32) == 840);
  const auto& c = golden::find_case("encoder_block.json", "lesson_d8_h2_ff32");
  EncoderBlock block(8, 2, 32);
  CHECK(block.params().used() == 840);
  // nn.LayerNorm calls gamma/beta weight/bias and the lesson's attention uses Wq..Wo.
  c.load_params(block.params(), {{"norm1.weight", "norm1.scale"},        {"norm1.bias", "norm1.shift"},
                                 {"norm2.weight", "norm2.scale"},        {"norm2.bias", "norm2.shift"},
                                 {"attn.Wq.weight", "att.W_query.weight"}, {"attn.Wk.weight", "att.W_key.weight"},
                                 {"attn.Wv.weight", "att.W_value.weight"}, {"attn.Wo.weight", "att.out_proj.weight"},
                                 {"ffn.0.weight", "ff.layers.0.weight"},   {"ffn.0.bias", "ff.layers.0.bias"},
                                 {"ffn.2.weight", "ff.layers.2.weight"},   {"ffn.2.bias", "ff.layers.2.bias"}});
  const Tensor y = block.forward(c.input("x"));
  CHECK(y.shape == Shape{2, 5, 8});
  golden::check_close("EncoderBlock", y, c.output("y"));
}

TEST_CASE("pre- and post-norm give different outputs on the same weights", "[transformer_block]") {
  BlockConfig cfg;
  cfg.emb_dim = 8;
  cfg.context_length = 4;
  cfg.n_heads = 2;
  TransformerBlock block(cfg, 9);
  Tensor x({1, 4, 8});
  for (int i = 0; i < 32; ++i) x.data[i] = static_cast<float>(i % 5) - 2.0f;
  const Tensor pre = block.forward(x);
  block.set_norm_placement(NormPlacement::Post);
  BlockInspection insp;
  const Tensor post = block.forward(x, &insp);
  CHECK(pre.data != post.data);
  // Post-norm ends in norm2, so with scale 1 / shift 0 every output row has mean 0 and variance ~1.
  for (int t = 0; t < 4; ++t) {
    CHECK(insp.norm2.out.mean[t] == Approx(0.0f).margin(1e-5));
    CHECK(insp.norm2.out.var[t] == Approx(1.0f).margin(1e-3));
  }
}

TEST_CASE("block parameter count follows the book: 4C^2+C attention, 8C^2+5C FFN, 4C norms", "[transformer_block]") {
  BlockConfig cfg;
  cfg.emb_dim = 768;
  cfg.context_length = 1024;
  cfg.n_heads = 12;
  // GPT-2 small block without qkv bias: 4C^2 + C (attention, out_proj bias) + 8C^2 + 5C (FFN) + 4C (norms)
  CHECK(TransformerBlock::num_params(cfg) == 12 * 768 * 768 + 10 * 768);
  CHECK(TransformerBlock::num_params(cfg) == 7085568);
  cfg.qkv_bias = true;
  CHECK(TransformerBlock::num_params(cfg) == 7085568 + 3 * 768);
}

TEST_CASE("transformer block rejects bad configs and input shapes", "[transformer_block][errors]") {
  BlockConfig cfg;
  cfg.emb_dim = 10;
  cfg.context_length = 4;
  cfg.n_heads = 4;
  CHECK_THROWS_WITH(TransformerBlock(cfg), Catch::Contains("emb_dim (10) must be divisible by n_heads (4)"));
  cfg.emb_dim = 8;
  cfg.drop_rate = 1.5;
  CHECK_THROWS_WITH(TransformerBlock(cfg), Catch::Contains("drop_rate must be in [0, 1), got 1.5"));
  cfg.drop_rate = 0.1;
  TransformerBlock block(cfg);
  CHECK_THROWS_WITH(block.forward(Tensor({1, 5, 8})), Catch::Contains("sequence length 5 exceeds context_length 4"));
  CHECK_THROWS_WITH(block.forward(Tensor({1, 2, 6})), Catch::Contains("(B, T, 8)"));
  CHECK_THROWS_WITH(parse_norm_placement("middle"), Catch::Contains("unknown norm placement 'middle'"));
}
