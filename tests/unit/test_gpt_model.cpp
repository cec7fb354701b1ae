// Tests for gpt_model.hpp: parameter counts, tiny-GPT logits and inspection against PyTorch in every
// variant (pre/post, qkv bias, tied/untied), causality, determinism, configs and bad input.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "blockscope/error.hpp"
#include "blockscope/gpt_model.hpp"
#include "support/configs.hpp"
#include "support/golden.hpp"

using namespace blockscope;

void check_block_inspection(const golden::Case& c, const BlockInspection& insp, const std::string& prefix);

namespace {
// The PyTorch goldens' tiny GPT: vocabulary 50, context 12, width 16, 4 heads, 2 layers.
GPTConfig tiny_config() { return test::small_gpt(50, 12, 16, 4, 2, 0.1); }
}  // namespace

TEST_CASE("GPT_CONFIG_124M has 163,009,536 parameters untied and 124,412,160 tied", "[gpt][lesson]") {
  GPTConfig cfg = GPTConfig::gpt2_124m();
  CHECK(GPTModel::count_parameters(cfg) == 163009536);
  cfg.tie_weights = true;
  CHECK(GPTModel::count_parameters(cfg) == 124412160);
}

TEST_CASE("a built model's arena holds exactly count_parameters floats in state_dict order", "[gpt]") {
  for (const bool tie : {false, true}) {
    GPTConfig cfg = tiny_config();
    cfg.tie_weights = tie;
    cfg.qkv_bias = tie;
    GPTModel model(cfg);
    CHECK(model.num_parameters() == GPTModel::count_parameters(cfg));
    CHECK(model.params().params().front().name == "tok_emb.weight");
    CHECK(model.params().params().back().name == (tie ? "final_norm.shift" : "out_head.weight"));
  }
}

TEST_CASE("tiny GPT logits and inspection match PyTorch in every variant", "[gpt][golden]") {
  for (const auto& c : golden::cases("gpt_tiny.json")) {
    SECTION(c.name) {
      GPTModel model(GPTConfig::from_json(c.config()));
      c.load_params(model.params());
      Shape shape;
      const auto ids = c.input_ids("ids", &shape);
      const Tensor logits = model.forward(ids, shape[0], shape[1], /*inspect=*/true);
      golden::check_close("GPT logits", logits, c.output("logits"), golden::kLogitsAtol, 0.0f);
      const auto& insp = model.last_inspection();
      REQUIRE(insp.layers.size() == 2);
      for (size_t l = 0; l < insp.layers.size(); ++l)
        check_block_inspection(c, insp.layers[l], "layers." + std::to_string(l) + ".");
      golden::check_close("inspection LayerNorm stats", insp.final_norm.in.mean, c.output("final_norm_in_mean"));
      golden::check_close("inspection LayerNorm stats", insp.final_norm.in.var, c.output("final_norm_in_var"));
      golden::check_close("inspection LayerNorm stats", insp.final_norm.out.mean, c.output("final_norm_out_mean"));
      golden::check_close("inspection LayerNorm stats", insp.final_norm.out.var, c.output("final_norm_out_var"));
      // Inspection is a by-product: the same pass without it gives bit-identical logits.
      CHECK(model.forward(ids, shape[0], shape[1]).data == logits.data);
      CHECK(model.last_inspection().empty());
    }
  }
}

TEST_CASE("GPT is causal: changing token t changes no logits before t", "[gpt]") {
  GPTModel model(tiny_config(), 11);
  std::vector<int32_t> ids = {3, 14, 15, 9, 26, 5, 35, 8};
  const Tensor a = model.forward(ids, 1, 8);
  ids[5] = 42;
  const Tensor b = model.forward(ids, 1, 8);
  const int64_t V = 50;
  for (int64_t i = 0; i < 5 * V; ++i) REQUIRE(a.data[i] == b.data[i]);
  bool changed = false;
  for (int64_t i = 5 * V; i < 8 * V; ++i) changed |= a.data[i] != b.data[i];
  CHECK(changed);
}

TEST_CASE("seeded initialisation is deterministic and seed-dependent", "[gpt]") {
  GPTModel a(tiny_config(), 7), b(tiny_config(), 7), c(tiny_config(), 8);
  const std::vector<int32_t> ids = {1, 2, 3};
  CHECK(a.forward(ids, 1, 3).data == b.forward(ids, 1, 3).data);
  CHECK(a.forward(ids, 1, 3).data != c.forward(ids, 1, 3).data);
  // Like the book: LayerNorm starts at scale 1, shift 0; Linear weights within +-1/sqrt(fan_in).
  const auto scale = a.params().get("trf_blocks.1.norm2.scale");
  CHECK(std::all_of(scale.begin(), scale.end(), [](float v) { return v == 1.0f; }));
  const auto w = a.params().get("trf_blocks.0.ff.layers.0.weight");
  CHECK(std::all_of(w.begin(), w.end(), [](float v) { return std::fabs(v) <= 0.25f; }));
}

TEST_CASE("GPT config reads the book's keys and rejects bad ones by name", "[gpt][errors]") {
  const auto j = nlohmann::json::parse(R"({"vocab_size": 50257, "context_length": 1024, "emb_dim": 768,
      "n_heads": 12, "n_layers": 12, "drop_rate": 0.1, "qkv_bias": false})");
  const GPTConfig cfg = GPTConfig::from_json(j);
  CHECK(cfg.emb_dim == 768);
  CHECK(GPTConfig::from_json(cfg.to_json()).to_json() == cfg.to_json());
  auto bad = j;
  bad["n_heads"] = 7;
  CHECK_THROWS_WITH(GPTConfig::from_json(bad), Catch::Contains("emb_dim (768) must be divisible by n_heads (7)"));
  bad = j;
  bad["n_layers"] = 0;
  CHECK_THROWS_WITH(GPTConfig::from_json(bad), Catch::Contains("n_layers must be positive, got 0"));
  bad = j;
  bad["emb_dim"] = -4;
  CHECK_THROWS_WITH(GPTConfig::from_json(bad), Catch::Contains("emb_dim must be positive, got -4"));
  bad = j;
  bad["n_embd"] = 768;
  CHECK_THROWS_WITH(GPTConfig::from_json(bad), Catch::Contains("unknown config key 'n_embd'"));
  bad = j;
  bad.erase("vocab_size");
  CHECK_THROWS_WITH(GPTConfig::from_json(bad), Catch::Contains("missing 'vocab_size'"));
  bad = j;
  bad["qkv_bias"] = "yes";
  CHECK_THROWS_WITH(GPTConfig::from_json(bad), Catch::Contains("'qkv_bias' must be true or false"));
  bad = j;
  bad["vocab_size"] = 1.5;
  CHECK_THROWS_WITH(GPTConfig::from_json(bad), Catch::Contains("'vocab_size' must be an integer"));
}

TEST_CASE("GPT forward rejects out-of-vocabulary ids, long sequences and wrong sizes, then still works", "[gpt][errors]") {
  GPTModel model(tiny_config());
  const std::vector<int32_t> ok = {1, 2, 3};
  CHECK_THROWS_WITH(model.forward(std::vector<int32_t>{1, 50, 3}, 1, 3),
                    Catch::Contains("token id 50 at position 1 is outside the vocabulary [0, 50)"));
  CHECK_THROWS_WITH(model.forward(std::vector<int32_t>{-1, 2, 3}, 1, 3), Catch::Contains("token id -1"));
  CHECK_THROWS_WITH(model.forward(std::vector<int32_t>(13, 1), 1, 13),
                    Catch::Contains("sequence length 13 exceeds context_length 12"));
  CHECK_THROWS_WITH(model.forward(ok, 2, 3), Catch::Contains("expected 2 x 3 = 6 token ids, got 3"));
  CHECK_THROWS_WITH(model.forward(ok, 1, 0), Catch::Contains("sequence length must be positive"));
  CHECK(model.forward(ok, 1, 3).shape == Shape{1, 3, 50});
}

TEST_CASE("norm placement can be switched on a built model", "[gpt]") {
  GPTModel model(tiny_config(), 3);
  const std::vector<int32_t> ids = {4, 8, 15};
  const Tensor pre = model.forward(ids, 1, 3, true);
  const float pre_norm0 = model.last_inspection().layers[1].residual_norm[2];
  model.set_norm_placement(NormPlacement::Post);
  const Tensor post = model.forward(ids, 1, 3, true);
  CHECK(pre.data != post.data);
  // Post-norm ends each block in a LayerNorm: the residual stream's norm is ~sqrt(C) = 4.
  CHECK(model.last_inspection().layers[1].residual_norm[2] == Approx(4.0f).margin(0.01f));
  CHECK(pre_norm0 != Approx(4.0f).margin(0.01f));
}

TEST_CASE("every config is parsed strictly, once, in the core", "[config][errors]") {
  using nlohmann::json;
  CHECK_THROWS_WITH(BlockConfig::from_json({{"emb_dim", 8}, {"context_length", 4}, {"n_heads", 2}, {"heads", 2}}),
                    Catch::Contains("unknown config key 'heads' in the block config"));
  CHECK_THROWS_WITH(BlockConfig::from_json({{"emb_dim", 8}, {"context_length", 4}}),
                    Catch::Contains("block config is missing 'n_heads'"));
  CHECK_THROWS_WITH(BlockConfig::from_json({{"emb_dim", 8.5}, {"context_length", 4}, {"n_heads", 2}}),
                    Catch::Contains("'emb_dim' must be an integer, got 8.5"));
  CHECK_THROWS_WITH(AttentionConfig::from_json({{"d_in", 8}, {"d_out", 6}, {"context_length", 4}, {"num_heads", 4}}),
                    Catch::Contains("d_out (6) must be divisible by num_heads (4)"));
  CHECK_THROWS_WITH(AttentionConfig::from_json({{"d_in", 8}, {"d_out", 8}, {"context_length", 4}, {"num_heads", 2},
                                                {"causal", "yes"}}),
                    Catch::Contains("'causal' must be true or false"));
  CHECK_THROWS_WITH(FeedForwardConfig::from_json({{"emb_dim", 8}, {"hidden_dim", 0}}),
                    Catch::Contains("hidden_dim must be positive, got 0"));
  CHECK_THROWS_WITH(FeedForwardConfig::from_json({{"emb_dim", 8}, {"hidden_dim", 8}, {"activation", "swish"}}),
                    Catch::Contains("unknown activation 'swish'"));
  json big = {{"vocab_size", 10}, {"context_length", 4}, {"emb_dim", 8}, {"n_heads", 2}, {"n_layers", 1}};
  big["emb_dim"] = json::parse("18446744073709551615");
  CHECK_THROWS_WITH(GPTConfig::from_json(big), Catch::Contains("'emb_dim' must be an integer, got 18446744073709551615"));
  const BlockConfig b = BlockConfig::from_json({{"emb_dim", 8}, {"context_length", 4}, {"n_heads", 2},
                                                {"activation", "relu"}, {"ffn_hidden", 16}, {"norm", "post"}});
  CHECK(BlockConfig::from_json(b.to_json()).to_json() == b.to_json());
  GPTConfig g = GPTConfig::from_json({{"vocab_size", 10}, {"context_length", 4}, {"emb_dim", 8}, {"n_heads", 2},
                                      {"n_layers", 1}, {"ffn_hidden", 12}, {"activation", "gelu_erf"}});
  CHECK(g.block().hidden_dim() == 12);
  CHECK(GPTConfig::from_json(g.to_json()).to_json() == g.to_json());
  CHECK(GPTModel::count_parameters(g) == GPTModel(g, 1).num_parameters());
}

TEST_CASE("a GPT config's residual flag: false drops the shortcuts, and only then appears in JSON", "[gpt]") {
  nlohmann::json j = {{"vocab_size", 16}, {"context_length", 8}, {"emb_dim", 8}, {"n_heads", 2}, {"n_layers", 2}};
  const GPTConfig with = GPTConfig::from_json(j);
  CHECK(with.residual);
  CHECK_FALSE(with.to_json().contains("residual"));  // ordinary configs keep the book's keys
  j["residual"] = false;
  const GPTConfig without = GPTConfig::from_json(j);
  CHECK_FALSE(without.residual);
  CHECK(without.to_json().at("residual") == false);
  CHECK_FALSE(GPTConfig::from_json(without.to_json()).residual);
  // The same weights give different logits without shortcuts; the parameter count does not change.
  GPTModel a(with, 5), b(without, 5);
  CHECK(a.num_parameters() == b.num_parameters());
  const std::vector<int32_t> ids = {1, 2, 3};
  const Tensor la = a.forward(ids, 1, 3), lb = b.forward(ids, 1, 3);
  bool differ = false;
  for (int64_t i = 0; i < la.numel(); ++i) differ |= la.data[i] != lb.data[i];
  CHECK(differ);
  j["residual"] = "no";
  CHECK_THROWS_WITH(GPTConfig::from_json(j), Catch::Contains("residual"));
}
