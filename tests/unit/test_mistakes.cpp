// Tests for mistakes.hpp: every mistake against PyTorch running the mistaken code (goldens layer_norm_variants.json
// and module_mistakes.json, from tests/reference/learner_mistakes.py), the ids, which module shows which, the
// "break a step" confinement, and the refusals (a mistake at a step where it cannot happen, bad shapes, NaN).
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <set>

#include "blockscope/error.hpp"
#include "blockscope/feed_forward.hpp"
#include "blockscope/mistakes.hpp"
#include "blockscope/multi_head_attention.hpp"
#include "blockscope/transformer_block.hpp"
#include "support/golden.hpp"

using namespace blockscope;

namespace {
std::vector<std::string> ids(const std::vector<Mistake>& ms) {
  std::vector<std::string> out;
  for (Mistake m : ms) out.push_back(mistake_id(m));
  return out;
}
double max_diff(std::span<const float> a, std::span<const float> b) {
  double d = 0;
  for (size_t i = 0; i < a.size(); ++i) d = std::max(d, std::fabs(double(a[i]) - b[i]));
  return d;
}
}  // namespace

TEST_CASE("every LayerNorm mistake equals PyTorch running that mistake", "[mistakes][golden]") {
  const auto& all = golden::cases("layer_norm_variants.json");
  CHECK(all.size() == 3 * layer_norm_mistakes().size());
  for (const auto& c : all) {
    SECTION(c.name) {
      const Mistake m = parse_mistake(c.config().at("mistake").get<std::string>());
      const Tensor x = c.input("x"), g = c.param("gamma"), b = c.param("beta");
      const std::vector<float> y = layer_norm_mistake(m, x.data, g.data, b.data, c.config().at("eps").get<float>());
      golden::check_close(c.name, y, c.output("y"));
    }
  }
}

TEST_CASE("every activation, FFN and attention mistake equals PyTorch running it", "[mistakes][golden]") {
  int seen = 0;
  for (const auto& c : golden::cases("module_mistakes.json")) {
    const std::string module = c.config().at("module");
    if (module == "block") continue;
    ++seen;
    SECTION(c.name) {
      const Mistake m = parse_mistake(c.config().at("mistake").get<std::string>());
      const Tensor x = c.input("x");
      if (module == "activation") {
        const Activation expected = parse_activation(c.config().at("expected").get<std::string>().c_str());
        golden::check_close(c.name, activation_mistake(m, expected, x.data), c.output("y"));
        const auto applicable = activation_mistakes(expected);
        CHECK(std::find(applicable.begin(), applicable.end(), m) != applicable.end());
      } else if (module == "feed_forward") {
        FeedForward ff(FeedForwardConfig::from_json(c.config().at("ffn")));
        c.load_params(*ff.own_params());
        const int64_t B = c.config().at("B"), T = c.config().at("T");
        golden::check_close(c.name, feed_forward_mistake(ff, m, x.data, B, T), c.output("y"));
        CHECK(ids(feed_forward_mistakes(ff, T)) ==
              std::vector<std::string>{"correct", "tanh-approximation", "relu-instead-of-gelu", "no-activation",
                                       "across-sequence"});
        CHECK(ids(feed_forward_mistakes(ff, 3)).size() == 4);  // T != d: the FFN cannot run along the sequence
      } else {
        MultiHeadAttention att(AttentionConfig::from_json(c.config().at("attention")));
        c.load_params(*att.own_params());
        const int64_t B = c.config().at("B"), T = c.config().at("T");
        golden::check_close(c.name, attention_mistake(att, m, x.data, B, T), c.output("y"));
        if (m == Mistake::Correct)  // the mistakes' own attention is the module's
          CHECK(max_diff(attention_mistake(att, m, x.data, B, T), att.forward(x).data) < 1e-6);
      }
    }
  }
  CHECK(seen == 6 + 5 + 4);
}

TEST_CASE("every step of the block with each mistake equals PyTorch's", "[mistakes][golden]") {
  for (const auto& c : golden::cases("module_mistakes.json")) {
    if (c.config().at("module") != "block") continue;
    SECTION(c.name) {
      TransformerBlock block(BlockConfig::from_json(c.config().at("block")));
      c.load_params(*block.own_params());
      const Tensor x = c.input("x");
      const int64_t B = c.config().at("B"), T = c.config().at("T");
      std::vector<std::string> runs;
      for (const auto& run : c.config().at("runs")) {
        const std::string r = run.get<std::string>();
        const auto at = r.find('@');
        const Mistake m = parse_mistake(r.substr(0, at));
        const std::string step = at == std::string::npos ? "" : r.substr(at + 1);
        if (step.empty()) runs.push_back(r);
        const auto steps = block_mistake(block, m, x.data, B, T, step);
        REQUIRE(steps.size() == 7);
        for (const BlockStep& s : steps) golden::check_close(c.name + " " + r + " " + s.id, s.values, c.output(r + "/" + s.id));
      }
      CHECK(runs == ids(block_mistakes(block, T)));  // the core lists exactly the mistakes PyTorch was run with
      // "correct" is the block itself.
      CHECK(max_diff(block_mistake(block, Mistake::Correct, x.data, B, T).back().values, block.forward(x).data) < 1e-6);
    }
  }
}

TEST_CASE("mistake ids are stable and parse back — an unknown one names the ids", "[mistakes]") {
  std::set<std::string> seen;
  for (Mistake m : all_mistakes()) {
    CHECK(parse_mistake(mistake_id(m)) == m);
    CHECK(seen.insert(mistake_id(m)).second);
  }
  CHECK(std::string(mistake_id(all_mistakes().front())) == "correct");
  CHECK_THROWS_WITH(parse_mistake("biased"), Catch::Contains("unknown mistake 'biased'") && Catch::Contains("wrong-axis") &&
                                                 Catch::Contains("softmax-wrong-axis"));
}

TEST_CASE("the LayerNorm mistakes tell themselves apart and refuse what LayerNorm refuses", "[mistakes]") {
  const std::vector<float> x = {1, 3, 5, 7, 2, 4, 6, 9}, g = {1, 1, 1, 1}, b = {0, 0, 0, 0};
  const auto correct = layer_norm_mistake(Mistake::Correct, x, g, b, 1e-5f);
  for (Mistake m : layer_norm_mistakes()) {
    if (m == Mistake::Correct || m == Mistake::NoAffine) continue;  // gamma 1, beta 0: no-affine = correct
    CHECK(max_diff(layer_norm_mistake(m, x, g, b, 1e-5f), correct) > 1e-6);
  }
  // Unbiased variance over one feature divides by n - 1 = 0: NaN, as torch.var.
  const std::vector<float> one = {2.0f}, g1 = {1.0f}, b1 = {0.0f};
  CHECK(std::isnan(layer_norm_mistake(Mistake::UnbiasedVariance, one, g1, b1, 1e-5f)[0]));
  CHECK_THROWS_WITH(layer_norm_mistake(Mistake::NoEps, std::vector<float>{1, 2, 3}, g, b, 1e-5f),
                    Catch::Contains("not a whole number of rows"));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  CHECK_THROWS_WITH(layer_norm_mistake(Mistake::NoEps, std::vector<float>{1, nan, 3, 4}, g, b, 1e-5f),
                    Catch::Contains("LayerNorm input"));
  CHECK_THROWS_WITH(layer_norm_mistake(Mistake::NoScale, x, g, b, 1e-5f), Catch::Contains("not a mistake LayerNorm"));
}

TEST_CASE("a mistake goes only where it can happen, and bad input is refused by name", "[mistakes]") {
  BlockConfig cfg;
  cfg.emb_dim = 4;
  cfg.context_length = 4;
  cfg.n_heads = 2;
  TransformerBlock block(cfg, 5);
  const std::vector<float> x(12, 0.5f);
  CHECK_THROWS_WITH(block_mistake(block, Mistake::NoScale, x, 1, 3, "norm1"), Catch::Contains("'no-scale' cannot happen at step norm1"));
  CHECK_THROWS_WITH(block_mistake(block, Mistake::NoScale, x, 1, 3, "lm_head"), Catch::Contains("unknown block step 'lm_head'"));
  CHECK_THROWS_WITH(block_mistake(block, Mistake::PreNorm, x, 1, 3), Catch::Contains("only in a post-norm block"));
  CHECK_THROWS_WITH(block_mistake(block, Mistake::Correct, x, 1, 4), Catch::Contains("needs 16"));
  CHECK_THROWS_WITH(block_mistake(block, Mistake::Correct, std::vector<float>(20, 0.f), 1, 5),
                    Catch::Contains("exceeds context_length"));
  std::vector<float> bad = x;
  bad[3] = std::numeric_limits<float>::infinity();
  CHECK_THROWS_WITH(block_mistake(block, Mistake::Correct, bad, 1, 3), Catch::Contains("block input contains NaN"));
  CHECK_THROWS_WITH(feed_forward_mistake(block.ff(), Mistake::AcrossSequence, x, 1, 3), Catch::Contains("needs T = emb_dim"));
  CHECK_THROWS_WITH(activation_mistake(Mistake::NoEps, Activation::GeluTanh, x), Catch::Contains("not a mistake an activation"));
  // Confined to one step, a mistake changes nothing before it.
  std::vector<float> y(12);
  for (size_t i = 0; i < y.size(); ++i) y[i] = 0.1f * float(i % 5) - 0.2f;
  const auto ok = block_mistake(block, Mistake::Correct, y, 1, 3);
  const auto broken = block_mistake(block, Mistake::UnbiasedVariance, y, 1, 3, "norm2");
  for (size_t s = 0; s < 4; ++s) CHECK(ok[s].values == broken[s].values);  // input, norm1, att, add1
  CHECK(max_diff(ok[4].values, broken[4].values) > 1e-3);                   // norm2 is the first to disagree
  CHECK(ids(block_mistakes(block, 3)).size() == 6 + 2 + 1 + 3 + 3);  // LN, activation, FFN, attention, wiring; no across-sequence (T != d)
}
