// Tests for generation.hpp: KV-cache decoding equals full forward passes, sampling semantics and
// determinism, stopping rules and context overflow handling; generation past the context against PyTorch
// (tests/golden/generation_slide.json, tests/reference/make_generation_goldens.py).
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "blockscope/checkpoint.hpp"
#include "blockscope/error.hpp"
#include "blockscope/generation.hpp"

using namespace blockscope;

namespace {
GPTConfig tiny(bool tie, NormPlacement norm, bool qkv_bias) {
  GPTConfig cfg;
  cfg.vocab_size = 40;
  cfg.context_length = 10;
  cfg.emb_dim = 16;
  cfg.n_heads = 4;
  cfg.n_layers = 2;
  cfg.tie_weights = tie;
  cfg.norm = norm;
  cfg.qkv_bias = qkv_bias;
  return cfg;
}
}  // namespace

TEST_CASE("KV-cache decoding gives the logits of a full forward pass", "[generation]") {
  for (const bool tie : {false, true})
    for (const NormPlacement norm : {NormPlacement::Pre, NormPlacement::Post}) {
      GPTModel model(tiny(tie, norm, !tie), 5);
      const std::vector<int32_t> ids = {3, 17, 25, 0, 39, 8, 11, 2, 30, 21};
      const Tensor full = model.forward(ids, 1, 10);
      KVCache cache(model.config());
      // Prefill 4 tokens at once, then one token at a time, then 2 at once.
      std::vector<float> cached;
      for (const auto& [from, n] : {std::pair{0, 4}, {4, 1}, {5, 1}, {6, 1}, {7, 1}, {8, 2}}) {
        const Tensor l = model.forward_cached(std::span<const int32_t>(ids).subspan(from, n), cache);
        cached.insert(cached.end(), l.data.begin(), l.data.end());
      }
      REQUIRE(cache.length == 10);
      REQUIRE(cached.size() == full.data.size());
      for (size_t i = 0; i < cached.size(); ++i) REQUIRE(cached[i] == Approx(full.data[i]).margin(1e-5));
      CHECK_THROWS_WITH(model.forward_cached(std::vector<int32_t>{1}, cache),
                        Catch::Contains("cannot append 1 tokens to a KV cache holding 10: context_length is 10"));
    }
}

TEST_CASE("last_only gives the last row of the logits and caches every key and value", "[generation]") {
  for (const NormPlacement norm : {NormPlacement::Pre, NormPlacement::Post}) {
    GPTModel model(tiny(false, norm, true), 9);
    const std::vector<int32_t> ids = {3, 17, 25, 0, 39, 8, 11, 2, 30, 21};
    const Tensor full = model.forward(ids, 1, 10);
    KVCache cache(model.config());
    const Tensor last = model.forward_cached(std::span<const int32_t>(ids).first(7), cache, /*last_only=*/true);
    REQUIRE(last.shape == Shape{1, 40});
    for (int64_t v = 0; v < 40; ++v) REQUIRE(last.data[v] == Approx(full.data[6 * 40 + v]).margin(1e-5));
    // The cache holds all 7 positions: decoding on from it gives the full pass's rows 7..9.
    const Tensor rest = model.forward_cached(std::span<const int32_t>(ids).subspan(7), cache);
    REQUIRE(cache.length == 10);
    for (int64_t i = 0; i < 3 * 40; ++i) REQUIRE(rest.data[i] == Approx(full.data[7 * 40 + i]).margin(1e-5));
  }
}

TEST_CASE("greedy generation past the context equals PyTorch's generate_text_simple on the Brown model",
          "[generation][golden]") {
  std::ifstream in(std::string(BLOCKSCOPE_GOLDEN_DIR) + "/generation_slide.json");
  REQUIRE(in.good());
  std::stringstream ss;
  ss << in.rdbuf();
  const auto golden = nlohmann::json::parse(ss.str());
  GPTModel model = load_model_dir(std::string(BLOCKSCOPE_SOURCE_DIR) + "/web/models/brown");
  const int64_t ctx = model.config().context_length;
  REQUIRE(golden.at("context_length").get<int64_t>() == ctx);
  for (const auto& c : golden.at("cases")) {
    INFO(c.at("name").get<std::string>() << " (regenerate with tests/reference/make_generation_goldens.py if "
                                            "web/models/brown changed)");
    const auto prompt = c.at("prompt").get<std::vector<int32_t>>();
    const auto expected = c.at("generated").get<std::vector<int32_t>>();
    GenerateOptions opts;
    opts.max_new_tokens = static_cast<int64_t>(expected.size());
    opts.sampling.temperature = 0.0f;
    opts.overflow = ContextOverflow::Crop;
    Generator gen(model, prompt, opts);
    for (size_t step = 0; step < expected.size(); ++step) {
      INFO("step " << step);
      const auto token = gen.next();
      REQUIRE(token.has_value());
      const auto& want = c.at("steps")[step].at("logits");
      const auto& got = gen.last_logits();
      REQUIRE(got.size() == want.size());
      double worst = 0.0;
      for (size_t v = 0; v < got.size(); ++v)
        worst = std::max(worst, std::fabs(static_cast<double>(got[v]) - want[v].get<double>()));
      INFO("max |core - PyTorch| = " << worst);
      REQUIRE(worst <= 1e-4);
      CHECK(*token == expected[step]);
      // The window slides once the (cropped) prompt and the tokens generated before this one exceed the context.
      CHECK(gen.sliding() == (std::min<int64_t>(static_cast<int64_t>(prompt.size()), ctx) + static_cast<int64_t>(step) > ctx));
    }
    CHECK(gen.stop_reason() == "max_new_tokens");
  }
}

TEST_CASE("greedy sampling is argmax, and top_k = 1 is greedy at any temperature", "[generation]") {
  const std::vector<float> logits = {0.1f, 2.5f, -1.0f, 2.5f, 0.0f};
  Rng rng(1);
  CHECK(sample_token(logits, {0.0f, 0, 1.0f}, rng) == 1);  // first maximum
  for (int i = 0; i < 50; ++i) CHECK(sample_token(logits, {5.0f, 1, 1.0f}, rng) == 1);
}

TEST_CASE("temperature sampling follows softmax(logits / T)", "[generation]") {
  const std::vector<float> logits = {1.0f, 2.0f, 0.0f, 1.5f};
  for (const float temp : {0.5f, 1.0f, 2.0f}) {
    Rng rng(42);
    std::map<int32_t, int> counts;
    const int n = 40000;
    for (int i = 0; i < n; ++i) ++counts[sample_token(logits, {temp, 0, 1.0f}, rng)];
    double z = 0;
    for (const float l : logits) z += std::exp(l / temp);
    for (int32_t id = 0; id < 4; ++id) {
      const double p = std::exp(logits[id] / temp) / z;
      INFO("T = " << temp << ", token " << id);
      CHECK(counts[id] / static_cast<double>(n) == Approx(p).margin(4 * std::sqrt(p * (1 - p) / n) + 1e-3));
    }
  }
}

TEST_CASE("top-k and top-p never sample outside their sets", "[generation]") {
  const std::vector<float> logits = {3.0f, 0.0f, 2.9f, 1.0f, -2.0f, 2.0f};
  // probabilities (T = 1): 0.406, 0.020, 0.367, 0.055, 0.003, 0.149 — cumulative 0.406, 0.773, 0.922 in rank
  // order (0, 2, 5): top_p 0.75 keeps {0, 2}.
  Rng rng(3);
  std::map<int32_t, int> k_counts, p_counts;
  for (int i = 0; i < 5000; ++i) {
    ++k_counts[sample_token(logits, {1.0f, 3, 1.0f}, rng)];
    ++p_counts[sample_token(logits, {1.0f, 0, 0.75f}, rng)];
  }
  for (const auto& [id, c] : k_counts) CHECK((id == 0 || id == 2 || id == 5));
  for (const auto& [id, c] : p_counts) CHECK((id == 0 || id == 2));
  CHECK(k_counts.size() == 3);
  CHECK(p_counts.size() == 2);
}

TEST_CASE("sampling is reproducible from the seed and rejects bad options", "[generation][errors]") {
  std::vector<float> logits(50);
  for (size_t i = 0; i < logits.size(); ++i) logits[i] = std::sin(static_cast<float>(i));
  Rng a(9), b(9);
  for (int i = 0; i < 100; ++i) REQUIRE(sample_token(logits, {0.8f, 20, 0.9f}, a) == sample_token(logits, {0.8f, 20, 0.9f}, b));
  CHECK_THROWS_WITH(sample_token(logits, {-1.0f, 0, 1.0f}, a), Catch::Contains("temperature must be >= 0, got -1"));
  CHECK_THROWS_WITH(sample_token(logits, {1.0f, -2, 1.0f}, a), Catch::Contains("top_k must be >= 0"));
  CHECK_THROWS_WITH(sample_token(logits, {1.0f, 0, 0.0f}, a), Catch::Contains("top_p must be in (0, 1], got 0"));
  logits[7] = NAN;
  CHECK_THROWS_WITH(sample_token(logits, {1.0f, 0, 1.0f}, a), Catch::Contains("logit 7 is NaN"));
}

TEST_CASE("greedy generation equals the book's generate_text_simple with full forward passes", "[generation]") {
  GPTModel model(tiny(false, NormPlacement::Pre, false), 21);
  std::vector<int32_t> prompt = {5, 6, 7};
  GenerateOptions opts;
  opts.max_new_tokens = 12;  // runs past context_length 10: Crop mode slides the window
  opts.sampling.temperature = 0.0f;
  opts.overflow = ContextOverflow::Crop;
  const auto generated = generate(model, prompt, opts);
  REQUIRE(generated.size() == 12);
  std::vector<int32_t> seq = prompt;
  for (int step = 0; step < 12; ++step) {  // idx_cond = idx[:, -context_size:]; argmax of the last logits
    const std::vector<int32_t> cond(seq.end() - std::min<ptrdiff_t>(seq.size(), 10), seq.end());
    const Tensor logits = model.forward(cond, 1, static_cast<int64_t>(cond.size()));
    const auto last = std::span<const float>(logits.data).last(40);
    seq.push_back(static_cast<int32_t>(std::max_element(last.begin(), last.end()) - last.begin()));
  }
  CHECK(std::vector<int32_t>(seq.begin() + 3, seq.end()) == generated);
}

TEST_CASE("generation stops at max_new_tokens, the stop token or a full context", "[generation]") {
  GPTModel model(tiny(true, NormPlacement::Pre, false), 4);
  GenerateOptions opts;
  opts.max_new_tokens = 5;
  opts.seed = 77;
  Generator g(model, std::vector<int32_t>{1, 2}, opts);
  int n = 0;
  while (g.next()) ++n;
  CHECK(n == 5);
  CHECK(g.stop_reason() == "max_new_tokens");

  // Stop token: the first sampled token of the same seeded run, so generation stops after one token.
  const int32_t first = Generator(model, std::vector<int32_t>{1, 2}, opts).next().value();
  opts.stop_token = first;
  Generator s(model, std::vector<int32_t>{1, 2}, opts);
  CHECK(s.next() == first);
  CHECK_FALSE(s.next().has_value());
  CHECK(s.stop_reason() == "stop_token");

  opts.stop_token.reset();
  opts.max_new_tokens = 100;
  Generator c(model, std::vector<int32_t>(8, 3), opts);  // 8 of 10 positions used
  n = 0;
  while (c.next()) ++n;
  CHECK(n == 3);  // logits exist for positions 8, 9 and 10 (the last from a full cache)
  CHECK(c.stop_reason() == "context_full");
}

TEST_CASE("context_start: the one cropping rule keeps the last context_length tokens or names both lengths",
          "[generation]") {
  CHECK(context_start(0, 10, ContextOverflow::Error) == 0);
  CHECK(context_start(10, 10, ContextOverflow::Error) == 0);
  CHECK(context_start(10, 10, ContextOverflow::Crop) == 0);
  CHECK(context_start(15, 10, ContextOverflow::Crop) == 5);
  CHECK_THROWS_WITH(context_start(15, 10, ContextOverflow::Error),
                    Catch::Contains("the prompt has 15 tokens but the model's context_length is 10"));
  CHECK_THROWS_WITH(context_start(-1, 10, ContextOverflow::Crop), Catch::Contains("n >= 0"));
  CHECK(parse_context_overflow("crop") == ContextOverflow::Crop);
  CHECK_THROWS_WITH(parse_context_overflow("first"), Catch::Contains("overflow must be 'error' or 'crop', got 'first'"));
}

TEST_CASE("too-long prompts are rejected or cropped, as asked", "[generation][errors]") {
  GPTModel model(tiny(true, NormPlacement::Pre, false), 4);
  GenerateOptions opts;
  opts.max_new_tokens = 2;
  const std::vector<int32_t> long_prompt(15, 7);
  CHECK_THROWS_WITH(Generator(model, long_prompt, opts),
                    Catch::Contains("the prompt has 15 tokens but the model's context_length is 10"));
  opts.overflow = ContextOverflow::Crop;
  Generator g(model, long_prompt, opts);
  CHECK(g.next().has_value());
  CHECK_THROWS_WITH(Generator(model, std::vector<int32_t>{}, opts), Catch::Contains("at least one token"));
  CHECK_THROWS_WITH(Generator(model, std::vector<int32_t>{1, 40}, opts), Catch::Contains("token id 40"));
  opts.stop_token = 99;
  CHECK_THROWS_WITH(Generator(model, std::vector<int32_t>{1}, opts), Catch::Contains("stop token 99 is outside"));
}

TEST_CASE("top_candidates ranks like the sampler and gives softmax probabilities", "[generation]") {
  const std::vector<float> logits = {1.0f, 3.0f, 2.0f, 3.0f, -1.0f};
  const auto c = top_candidates(logits, 3);
  REQUIRE(c.size() == 3);
  CHECK(c[0].id == 1);  // tie with id 3: lower id first
  CHECK(c[1].id == 3);
  CHECK(c[2].id == 2);
  double z = 0;
  for (const float l : logits) z += std::exp(l - 3.0);
  CHECK(c[0].probability == Approx(1.0 / z).epsilon(1e-6));
  CHECK(c[2].logit == 2.0f);
  const auto hot = top_candidates(logits, 10, 2.0f);  // k larger than the vocabulary: all of it
  REQUIRE(hot.size() == 5);
  double sum = 0;
  for (const auto& x : hot) sum += x.probability;
  CHECK(sum == Approx(1.0).epsilon(1e-6));
  CHECK(hot[4].probability > 0.0f);
  // k at or above the vocabulary ranks every id (ties by id), -inf last with probability 0.
  const std::vector<float> masked = {0.5f, -INFINITY, 2.0f, 0.5f};
  const auto all = top_candidates(masked, 4);
  REQUIRE(all.size() == 4);
  CHECK((std::vector<int32_t>{all[0].id, all[1].id, all[2].id, all[3].id}) == std::vector<int32_t>{2, 0, 3, 1});
  CHECK(all[3].probability == 0.0f);
  for (const auto& x : all) CHECK(!std::isnan(x.probability));
  CHECK_THROWS_WITH(top_candidates(std::vector<float>{1.0f, NAN}, 2), Catch::Contains("logit 1 is NaN"));
  CHECK_THROWS_WITH(top_candidates(std::vector<float>{INFINITY, 1.0f}, 2), Catch::Contains("logit 0 is +inf"));
  CHECK_THROWS_WITH(top_candidates(std::vector<float>{-INFINITY, -INFINITY}, 5), Catch::Contains("every logit is -inf"));
  CHECK_THROWS_WITH(top_candidates(logits, 0), Catch::Contains("at least 1, got 0"));
  CHECK_THROWS_WITH(top_candidates(logits, 2, 0.0f), Catch::Contains("temperature must be > 0"));
}

TEST_CASE("generation options from the JS API's object are parsed strictly in the core", "[generation][config]") {
  using nlohmann::json;
  const GenerateOptions g = GenerateOptions::from_json(
      {{"maxNewTokens", 7}, {"temperature", 0.5}, {"topK", 3}, {"topP", 0.9}, {"seed", 4}, {"stopToken", 2},
       {"overflow", "crop"}});
  CHECK(g.max_new_tokens == 7);
  CHECK(g.sampling.top_k == 3);
  CHECK(g.seed == 4);
  CHECK(g.stop_token == 2);
  CHECK(g.overflow == ContextOverflow::Crop);
  CHECK_FALSE(GenerateOptions::from_json(json::object()).stop_token.has_value());
  CHECK_THROWS_WITH(GenerateOptions::from_json({{"topK", 1.5}}), Catch::Contains("'topK' must be an integer, got 1.5"));
  CHECK_THROWS_WITH(GenerateOptions::from_json({{"topk", 1}}), Catch::Contains("unknown config key 'topk'"));
  CHECK_THROWS_WITH(GenerateOptions::from_json({{"seed", -1}}), Catch::Contains("seed must be an integer in [0, 2^53)"));
  CHECK_THROWS_WITH(GenerateOptions::from_json({{"stopToken", 1e10}}), Catch::Contains("'stopToken' must be an integer"));
  CHECK_THROWS_WITH(GenerateOptions::from_json({{"overflow", "wrap"}}), Catch::Contains("overflow must be 'error' or 'crop'"));
  CHECK_THROWS_WITH(GenerateOptions::from_json({{"temperature", -1}}), Catch::Contains("temperature must be >= 0"));
}
