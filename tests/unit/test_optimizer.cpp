// Tests for optimizer.hpp against PyTorch (tests/golden/optim.json): AdamW with and without excluded
// parameters vs torch.optim.AdamW over 5 steps (within 1e-6 relative after every step), clipping vs
// torch.nn.utils.clip_grad_norm_, the warmup + cosine schedule vs LambdaLR; optimizer state round trips.
#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>

#include "blockscope/error.hpp"
#include "blockscope/optimizer.hpp"
#include "support/golden.hpp"

using namespace blockscope;

namespace {
// An arena holding the case's params (or, for clipping, its "grad.*" inputs) in file order.
ParamArena arena_of(const golden::Case& c, const std::string& section, const std::string& prefix) {
  int64_t n = 0;
  std::vector<std::pair<std::string, Tensor>> items;
  for (const auto& [key, value] : c.json.at(section).items()) {
    if (key.rfind(prefix, 0) != 0 || (section == "inputs" && key.find(".step") != std::string::npos)) continue;
    items.emplace_back(key.substr(prefix.size()), golden::to_tensor(value));
    n += items.back().second.numel();
  }
  ParamArena a(n);
  for (const auto& [name, t] : items) {
    a.take(name, t.shape);
    a.assign(name, t.shape, t.data);
  }
  return a;
}
}  // namespace

TEST_CASE("AdamW matches torch.optim.AdamW step by step, with and without excluded parameters",
          "[optimizer][golden]") {
  for (const char* name : {"adamw_groups", "adamw_all_decay"}) {
    SECTION(name) {
      const auto& c = golden::find_case("optim.json", name);
      const auto& cfg = c.config();
      ParamArena params = arena_of(c, "params", "");
      const auto no_decay = cfg.at("no_decay").get<std::vector<std::string>>();
      AdamWConfig ac{cfg.at("lr"), cfg.at("beta1"), cfg.at("beta2"), cfg.at("eps"), cfg.at("weight_decay"), true};
      AdamW opt(params, ac, [&](const ParamInfo& p) {
        return std::find(no_decay.begin(), no_decay.end(), p.name) == no_decay.end();
      });
      ParamArena grads = ParamArena::zeros_like(params);
      for (int s = 1; s <= cfg.at("steps").get<int>(); ++s) {
        for (const auto& p : grads.params()) {
          const Tensor g = c.input("grad.step" + std::to_string(s) + "." + p.name);
          grads.assign(p.name, g.shape, g.data);
        }
        opt.step(params, grads, ac.lr);
        for (const auto& p : params.params())
          golden::check_close("AdamW parameters", params.get(p.name),
                              c.output("step" + std::to_string(s) + "." + p.name), 0.0f, 1e-6f);
      }
      CHECK(opt.steps() == 5);
    }
  }
}

TEST_CASE("the default decay rule excludes biases, LayerNorm parameters and embeddings", "[optimizer]") {
  CHECK(decays({"trf_blocks.0.att.W_query.weight", {4, 4}, 0, 16}));
  CHECK(decays({"out_head.weight", {50, 4}, 0, 200}));
  CHECK_FALSE(decays({"trf_blocks.0.att.W_query.bias", {4}, 0, 4}));
  CHECK_FALSE(decays({"trf_blocks.0.norm1.scale", {4}, 0, 4}));
  CHECK_FALSE(decays({"tok_emb.weight", {50, 4}, 0, 200}));
  CHECK_FALSE(decays({"pos_emb.weight", {8, 4}, 0, 32}));
}

TEST_CASE("clip_grad_norm matches torch.nn.utils.clip_grad_norm_", "[optimizer][golden]") {
  for (const char* name : {"clip_norm_1", "clip_norm_100"}) {
    SECTION(name) {
      const auto& c = golden::find_case("optim.json", name);
      ParamArena grads = arena_of(c, "inputs", "grad.");
      const double total = clip_grad_norm(grads, c.config().at("max_norm").get<double>());
      golden::check_close("clip_grad_norm", std::vector<float>{static_cast<float>(total)}, c.output("total_norm"),
                          0.0f, 1e-6f);
      for (const auto& p : grads.params())
        golden::check_close("clip_grad_norm", grads.get(p.name), c.output("clipped." + p.name), 0.0f, 1e-6f);
    }
  }
}

TEST_CASE("warmup + cosine decay matches the same schedule through torch's LambdaLR", "[optimizer][golden]") {
  for (const char* name : {"lr_schedule", "lr_schedule_no_warmup"}) {
    SECTION(name) {
      const auto& c = golden::find_case("optim.json", name);
      const auto& cfg = c.config();
      const Tensor expected = c.output("lrs");
      std::vector<float> lrs;
      for (int64_t s = 0; s < expected.numel(); ++s)
        lrs.push_back(static_cast<float>(scheduled_lr(s, cfg.at("steps"), cfg.at("warmup"), cfg.at("lr"),
                                                      cfg.at("min_lr"))));
      golden::check_close("lr schedule", lrs, expected, 0.0f, 1e-6f);
    }
  }
}

TEST_CASE("optimizer state saves and restores m, v and the step count", "[optimizer]") {
  ParamArena params(6);
  params.take("w", {2, 2});
  params.take("b", {2});
  for (int i = 0; i < 6; ++i) params.data()[i] = 0.1f * static_cast<float>(i);
  ParamArena grads = ParamArena::zeros_like(params);
  for (int i = 0; i < 6; ++i) grads.data()[i] = 0.5f - 0.2f * static_cast<float>(i);
  AdamW a(params, AdamWConfig{}), b(params, AdamWConfig{});
  a.step(params, grads, 1e-3);
  a.step(params, grads, 1e-3);
  const auto bytes = a.save_state();
  b.load_state(bytes);
  CHECK(b.steps() == 2);
  for (int i = 0; i < 6; ++i) {
    CHECK(b.m().data()[i] == a.m().data()[i]);
    CHECK(b.v().data()[i] == a.v().data()[i]);
  }
  ParamArena other(2);
  other.take("x", {2});
  AdamW c(other, AdamWConfig{});
  CHECK_THROWS_WITH(c.load_state(bytes), Catch::Contains("this model needs 2 (m and v of each parameter)"));
  const std::vector<uint8_t> junk = {1, 2, 3};
  CHECK_THROWS_AS(c.load_state(junk), Error);
}

TEST_CASE("optimizer state with an absurd step count is refused, not overflowed", "[optimizer][errors]") {
  // Regression (fuzz_safetensors/adamw-step-overflow): "step": INT64_MAX loaded, then ++step overflowed.
  ParamArena params(2);
  params.take("w", {2});
  ParamArena grads = ParamArena::zeros_like(params);
  AdamW a(params, AdamWConfig{});
  a.step(params, grads, 1e-3);
  const std::vector<uint8_t> saved = a.save_state();
  const auto with_step = [&](const std::string& step) {
    uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | saved[static_cast<size_t>(i)];
    std::string header(saved.begin() + 8, saved.begin() + 8 + static_cast<std::ptrdiff_t>(n));
    const auto at = header.find("\"step\":\"1\"");
    REQUIRE(at != std::string::npos);
    header.replace(at, 10, "\"step\":\"" + step + "\"");
    std::vector<uint8_t> out(8);
    for (int i = 0; i < 8; ++i) out[static_cast<size_t>(i)] = static_cast<uint8_t>(header.size() >> (8 * i));
    out.insert(out.end(), header.begin(), header.end());
    out.insert(out.end(), saved.begin() + 8 + static_cast<std::ptrdiff_t>(n), saved.end());
    return out;
  };
  AdamW b(params, AdamWConfig{});
  b.load_state(with_step("12"));
  CHECK(b.steps() == 12);
  for (const char* bad : {"9223372036854775807", "99999999999999999999", "-1", "", "9007199254740992", "1e3"}) {
    CAPTURE(bad);
    CHECK_THROWS_WITH(b.load_state(with_step(bad)), Catch::Contains("is not an integer in [0, 2^53)"));
  }
  CHECK(b.steps() == 12);
}

TEST_CASE("AdamW rejects bad hyperparameters by name", "[optimizer][errors]") {
  ParamArena params(1);
  params.take("x", {1});
  AdamWConfig bad;
  bad.lr = 0;
  CHECK_THROWS_WITH(AdamW(params, bad), Catch::Contains("learning rate must be a positive number, got 0"));
  bad = {};
  bad.beta2 = 1.0;
  CHECK_THROWS_WITH(AdamW(params, bad), Catch::Contains("beta2 must be in [0, 1), got 1"));
  bad = {};
  bad.weight_decay = NAN;
  CHECK_THROWS_WITH(AdamW(params, bad), Catch::Contains("weight_decay must be >= 0"));
}
