// Tests for residual_mlp.hpp: lesson 82 §21's with/without-residual network against PyTorch autograd
// (tests/golden/residual_flow.json), its seeded init, config and input errors, and the LayerNorm variant's
// gradient against a central finite difference of an independent double-precision forward.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <numbers>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "blockscope/error.hpp"
#include "blockscope/residual_mlp.hpp"
#include "blockscope/rng.hpp"
#include "support/golden.hpp"

using namespace blockscope;
using nlohmann::json;

namespace {
// The golden case run through the core: PyTorch's weights loaded, forward, then y.sum().backward().
ResidualMLP run_case(const golden::Case& c) {
  ResidualMLP net(ResidualMLPConfig::from_json(c.config()), 1);
  c.load_params(net.params());
  net.forward(c.input("x"));
  net.backward_sum();
  return net;
}
}  // namespace

TEST_CASE("residual-flow nets match PyTorch: y, every weight and bias gradient, per-layer gradient norms",
          "[residual_flow][golden]") {
  for (const char* name : {"no_residual", "residual"}) {
    SECTION(name) {
      const golden::Case& c = golden::find_case("residual_flow.json", name);
      ResidualMLP net(ResidualMLPConfig::from_json(c.config()), 1);
      CHECK(net.config().residual == (std::string(name) == "residual"));
      c.load_params(net.params());
      const Tensor y = net.forward(c.input("x"));
      golden::check_close("ResidualMLP", y, c.output("y"));
      net.backward_sum();
      CHECK(golden::check_grads("ResidualMLP backward", c, net.grads()) == 16);
      const std::vector<float> norms = net.weight_grad_norms();
      REQUIRE(norms.size() == 8);
      golden::check_close("ResidualMLP grad norms", norms, c.output("grad_norms"));
    }
  }
}

TEST_CASE("the lesson's printout: no-res L1=15.069, L8=9.787 — residual L1=29.272, L8=31.163", "[residual_flow][lesson]") {
  const std::vector<float> no_res = run_case(golden::find_case("residual_flow.json", "no_residual")).weight_grad_norms();
  const std::vector<float> res = run_case(golden::find_case("residual_flow.json", "residual")).weight_grad_norms();
  CHECK(no_res.front() == Approx(15.069).margin(5e-4));
  CHECK(no_res.back() == Approx(9.787).margin(5e-4));
  CHECK(res.front() == Approx(29.272).margin(5e-4));
  CHECK(res.back() == Approx(31.163).margin(5e-4));
}

TEST_CASE("backward_sum zeroes the gradients first: a second call gives the same gradients", "[residual_flow]") {
  ResidualMLP net(ResidualMLPConfig{}, 3);
  Rng rng(11);
  Tensor x({4, 16});
  for (float& v : x.data) v = rng.normal();
  net.forward(x);
  net.backward_sum();
  const std::vector<float> g1(net.grads().data(), net.grads().data() + net.grads().used());
  const std::vector<float> dx1 = net.input_grad().data;
  net.backward_sum();
  CHECK(std::vector<float>(net.grads().data(), net.grads().data() + net.grads().used()) == g1);
  CHECK(net.input_grad().data == dx1);
  // A new batch size re-sizes the activations; a row's output does not depend on the other rows (up to the
  // summation order of the one-row matrix-vector kernel).
  const Tensor y4 = net.forward(x);
  const Tensor y1 = net.forward(Tensor({1, 16}, std::vector<float>(x.data.begin(), x.data.begin() + 16)));
  REQUIRE(y1.shape == Shape{1, 16});
  for (int i = 0; i < 16; ++i) CHECK(y1.data[i] == Approx(y4.data[i]).margin(1e-5));
  net.backward_sum();
  CHECK(net.input_grad().shape == Shape{1, 16});
}

TEST_CASE("parameters are named like the lesson's ModuleList, norms only with layer_norm", "[residual_flow]") {
  ResidualMLPConfig cfg;
  ResidualMLP plain(cfg, 1);
  CHECK(plain.params().used() == 8 * (16 * 16 + 16));
  CHECK(ResidualMLP::num_params(cfg) == 8 * (16 * 16 + 16));
  REQUIRE(plain.params().find("layers.7.weight") != nullptr);
  CHECK(plain.params().find("layers.7.weight")->shape == Shape{16, 16});
  CHECK(plain.params().find("layers.0.bias")->shape == Shape{16});
  CHECK(plain.params().find("layers.8.weight") == nullptr);
  CHECK(plain.params().find("norms.0.scale") == nullptr);
  cfg.layer_norm = true;
  cfg.depth = 3;
  ResidualMLP normed(cfg, 1);
  CHECK(normed.params().used() == 3 * (16 * 16 + 16 + 2 * 16));
  REQUIRE(normed.params().find("norms.2.shift") != nullptr);
  CHECK(normed.params().get("norms.2.scale")[0] == 1.0f);  // torch.nn.LayerNorm's init
  CHECK(normed.params().get("norms.2.shift")[0] == 0.0f);
}

TEST_CASE("init is deterministic: same seed, same weights — another seed, other weights", "[residual_flow]") {
  for (const float init_std : {0.0f, 0.3f}) {
    ResidualMLPConfig cfg;
    cfg.init_std = init_std;
    ResidualMLP a(cfg, 42), b(cfg, 42), c(cfg, 43);
    const auto all = [](const ResidualMLP& m) {
      return std::vector<float>(m.params().data(), m.params().data() + m.params().used());
    };
    CHECK(all(a) == all(b));
    CHECK(all(a) != all(c));
  }
}

TEST_CASE("init_std 0.3 draws N(0, 0.3) weights — the default is U(+-1/sqrt(dim)) — biases keep the default",
          "[residual_flow]") {
  ResidualMLPConfig cfg;
  cfg.dim = 64;
  cfg.init_std = 0.3f;
  const ResidualMLP normal(cfg, 5);
  cfg.init_std = 0.0f;
  const ResidualMLP uniform(cfg, 5);
  const float bound = 1.0f / 8.0f;
  const auto stats = [&](const ResidualMLP& m, const char* suffix, double& mean, double& sd, double& max_abs) {
    double s = 0, s2 = 0;
    int64_t n = 0;
    max_abs = 0;
    for (int64_t i = 0; i < cfg.depth; ++i)
      for (const float v : m.params().get("layers." + std::to_string(i) + suffix)) {
        s += v;
        s2 += static_cast<double>(v) * v;
        max_abs = std::max(max_abs, std::fabs(static_cast<double>(v)));
        ++n;
      }
    mean = s / n;
    sd = std::sqrt(s2 / n - mean * mean);
  };
  double mean, sd, max_abs;
  stats(normal, ".weight", mean, sd, max_abs);  // 32768 draws: the sample std is within ~0.0012 of 0.3
  CHECK(sd == Approx(0.3).margin(0.006));
  CHECK(mean == Approx(0.0).margin(0.006));
  CHECK(max_abs > bound);
  stats(normal, ".bias", mean, sd, max_abs);
  CHECK(max_abs <= bound);
  stats(uniform, ".weight", mean, sd, max_abs);
  CHECK(max_abs <= bound);
  CHECK(sd == Approx(bound / std::sqrt(3.0)).margin(0.003));  // the std of U(-b, b) is b / sqrt(3)
}

TEST_CASE("configs: from_json reads the lesson's keys (null init_std = default init), bad values throw naming them",
          "[residual_flow]") {
  const ResidualMLPConfig d = ResidualMLPConfig::from_json(json::object());
  CHECK((d.depth == 8 && d.dim == 16 && d.activation == Activation::Tanh && d.residual && !d.layer_norm &&
         d.init_std == 0.0f));
  const ResidualMLPConfig c = ResidualMLPConfig::from_json(
      {{"depth", 32}, {"dim", 4}, {"activation", "relu"}, {"residual", false}, {"layer_norm", true}, {"init_std", 0.5}});
  CHECK((c.depth == 32 && c.dim == 4 && c.activation == Activation::Relu && !c.residual && c.layer_norm &&
         c.init_std == 0.5f));
  CHECK(ResidualMLPConfig::from_json({{"init_std", nullptr}}).init_std == 0.0f);
  CHECK(ResidualMLPConfig::from_json({{"activation", "gelu_erf"}}).activation == Activation::GeluErf);
  CHECK(ResidualMLPConfig::from_json({{"activation", "gelu_tanh"}}).activation == Activation::GeluTanh);

  using Catch::Contains;
  CHECK_THROWS_WITH(ResidualMLPConfig::from_json({{"depht", 8}}), Contains("'depht'"));
  CHECK_THROWS_WITH(ResidualMLPConfig::from_json({{"activation", "swish"}}), Contains("'swish'"));
  CHECK_THROWS_WITH(ResidualMLPConfig::from_json({{"depth", 2.5}}), Contains("2.5"));
  CHECK_THROWS_WITH(ResidualMLPConfig::from_json({{"residual", "yes"}}), Contains("\"yes\""));
  CHECK_THROWS_WITH(ResidualMLPConfig::from_json({{"init_std", "0.3"}}), Contains("init_std"));
  CHECK_THROWS_WITH(ResidualMLPConfig::from_json({{"depth", 0}}), Contains("depth must be in [1, 256], got 0"));
  CHECK_THROWS_WITH(ResidualMLPConfig::from_json({{"init_std", 1e300}}), Contains("init_std") && Contains("inf"));
  CHECK_THROWS_AS(ResidualMLPConfig::from_json(json::array()), Error);

  const auto bad = [](auto edit) {
    ResidualMLPConfig cfg;
    edit(cfg);
    return cfg;
  };
  CHECK_THROWS_WITH(ResidualMLP(bad([](auto& c) { c.depth = 257; }), 1), Contains("depth") && Contains("got 257"));
  CHECK_THROWS_WITH(bad([](auto& c) { c.dim = 0; }).validate(), Contains("dim") && Contains("got 0"));
  CHECK_THROWS_WITH(bad([](auto& c) { c.dim = 4097; }).validate(), Contains("got 4097"));
  CHECK_THROWS_WITH(bad([](auto& c) { c.init_std = -0.1f; }).validate(), Contains("init_std") && Contains("-0.1"));
  CHECK_THROWS_WITH(bad([](auto& c) { c.init_std = std::numeric_limits<float>::quiet_NaN(); }).validate(),
                    Contains("init_std") && Contains("nan"));
  // In range one by one, but 256 x 4096^2 weights and their gradients are 34 GB: over the memory budget, rejected
  // before anything is allocated.
  const ResidualMLPConfig huge = bad([](auto& c) {
    c.depth = 256;
    c.dim = 4096;
  });
  CHECK_NOTHROW(huge.validate());
  CHECK_THROWS_WITH(ResidualMLP(huge, 1), Contains("depth 256") && Contains("dim 4096") && Contains("memory budget by"));
  CHECK_THROWS_WITH(ResidualMLP(bad([](auto& c) { c.dim = 64; }), 1, MemoryBudget{1000}),
                    Contains("with their gradients) needs 260.0 KiB, over the 1000 bytes memory budget"));
  CHECK_NOTHROW(bad([](auto& c) { c.depth = 256; }).validate());
}

TEST_CASE("bad inputs throw Error naming the shape or the NaN — backward needs a forward", "[residual_flow]") {
  using Catch::Contains;
  ResidualMLP net(ResidualMLPConfig{}, 1);
  CHECK_THROWS_WITH(net.backward_sum(), Contains("forward"));
  CHECK_THROWS_WITH(net.forward(Tensor({4, 15})), Contains("(B, 16)") && Contains("(4, 15)"));
  CHECK_THROWS_WITH(net.forward(Tensor({16})), Contains("(16,)"));
  CHECK_THROWS_WITH(net.forward(Tensor({2, 4, 16})), Contains("(2, 4, 16)"));
  CHECK_THROWS_WITH(net.forward(Tensor({0, 16})), Contains("(0, 16)"));
  Tensor lying({2, 16});
  lying.data.resize(16);  // a shape that does not match its data must not overrun the activations
  CHECK_THROWS_WITH(net.forward(lying), Contains("(2, 16)") && Contains("16 values"));
  Tensor x({2, 16});
  x.data[21] = std::numeric_limits<float>::quiet_NaN();
  CHECK_THROWS_WITH(net.forward(x), Contains("ResidualMLP input") && Contains("21"));
  CHECK_THROWS_AS(net.backward_sum(), Error);  // a rejected forward leaves nothing to differentiate
  // Activations are bounded like the weights, by the net's budget: 256 layers x 1.1M rows need 2.3 GB, over the
  // portable 2 GiB (what a page's wasm32 module gives a model, and below 2^32 floats for its size_t).
  ResidualMLPConfig deep;
  deep.depth = 256;
  deep.dim = 1;
  ResidualMLP tall(deep, 1, MemoryBudget{MemoryBudget::kPortableBytes});
  CHECK_THROWS_WITH(tall.forward(Tensor({1100000, 1})), Contains("B = 1100000"));
}

namespace {
// Independent double-precision forward of the net, loss = y.sum(), from the net's own (float) parameters
// with `delta` added to parameter float `p` (p < 0: to input element -p - 1).
double reference_loss(const ResidualMLP& net, const Tensor& x, int64_t p, double delta) {
  const ResidualMLPConfig& cfg = net.config();
  const int64_t B = x.dim(0), C = cfg.dim;
  std::vector<double> w(net.params().data(), net.params().data() + net.params().used());
  std::vector<double> h(x.data.begin(), x.data.end());
  if (p >= 0) w[p] += delta;
  else h[-p - 1] += delta;
  const auto at = [&](const std::string& name) { return w.data() + net.params().find(name)->offset; };
  const auto act = [&](double v) {
    switch (cfg.activation) {
      case Activation::Tanh: return std::tanh(v);
      case Activation::GeluErf: return 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)));
      case Activation::GeluTanh: return 0.5 * v * (1.0 + std::tanh(std::sqrt(2.0 / std::numbers::pi) * (v + 0.044715 * v * v * v)));
      case Activation::Relu: return v > 0 ? v : 0.0;
    }
    return 0.0;
  };
  std::vector<double> u(C), out(B * C);
  for (int64_t l = 0; l < cfg.depth; ++l) {
    const std::string i = std::to_string(l);
    const double *W = at("layers." + i + ".weight"), *b = at("layers." + i + ".bias");
    for (int64_t r = 0; r < B; ++r) {
      const double* xr = h.data() + r * C;
      for (int64_t c = 0; c < C; ++c) u[c] = xr[c];
      if (cfg.layer_norm) {  // torch.nn.LayerNorm: biased variance, eps 1e-5
        double mean = 0, var = 0;
        for (const double v : u) mean += v / C;
        for (const double v : u) var += (v - mean) * (v - mean) / C;
        const double *g = at("norms." + i + ".scale"), *s = at("norms." + i + ".shift");
        for (int64_t c = 0; c < C; ++c) u[c] = (u[c] - mean) / std::sqrt(var + 1e-5) * g[c] + s[c];
      }
      for (int64_t o = 0; o < C; ++o) {
        double z = b[o];
        for (int64_t c = 0; c < C; ++c) z += W[o * C + c] * u[c];
        out[r * C + o] = act(z) + (cfg.residual ? xr[o] : 0.0);
      }
    }
    h = out;
  }
  double loss = 0;
  for (const double v : h) loss += v;
  return loss;
}
}  // namespace

TEST_CASE("layer_norm variant: every gradient matches a central finite difference in double", "[residual_flow]") {
  struct Variant {
    Activation act;
    bool residual;
  };
  for (const Variant v : {Variant{Activation::Tanh, true}, Variant{Activation::GeluErf, false},
                          Variant{Activation::GeluTanh, true}}) {
    SECTION(std::string(activation_name(v.act)) + (v.residual ? " with" : " without") + " residual") {
      ResidualMLPConfig cfg;
      cfg.depth = 3;
      cfg.dim = 5;
      cfg.activation = v.act;
      cfg.residual = v.residual;
      cfg.layer_norm = true;
      cfg.init_std = 0.5f;
      ResidualMLP net(cfg, 9);
      Rng rng(10);
      for (int64_t i = 0; i < 3; ++i) {  // LayerNorm scale and shift away from 1 and 0, so their gradients matter
        for (float& g : net.params().get("norms." + std::to_string(i) + ".scale")) g = rng.uniform(0.5f, 1.5f);
        for (float& s : net.params().get("norms." + std::to_string(i) + ".shift")) s = rng.uniform(-0.5f, 0.5f);
      }
      Tensor x({3, 5});
      for (float& e : x.data) e = rng.normal();
      const Tensor y = net.forward(x);
      double y_sum = 0;
      for (const float e : y.data) y_sum += e;
      CHECK(y_sum == Approx(reference_loss(net, x, 0, 0.0)).margin(1e-4));
      net.backward_sum();

      // Every parameter float, then every input element (reference_loss's p < 0).
      const double h = 1e-5;
      const int64_t n = net.params().used();
      std::vector<double> expected, actual;
      for (int64_t p = -x.numel(); p < n; ++p) {
        expected.push_back((reference_loss(net, x, p, h) - reference_loss(net, x, p, -h)) / (2 * h));
        actual.push_back(p >= 0 ? net.grads().data()[p] : net.input_grad().data[-p - 1]);
      }
      // float32 rounding, amplified by LayerNorm's 1/std, leaves ~1e-6 of the gradients' scale (measured at most
      // 1.4e-5 at scale 15); a wrong derivative is off by far more.
      double scale = 0;
      for (const double e : expected) scale = std::max(scale, std::fabs(e));
      int checked = 0;
      for (size_t i = 0; i < expected.size(); ++i) {
        const int64_t p = static_cast<int64_t>(i) - x.numel();
        INFO((p >= 0 ? "parameter float " : "input ") << (p >= 0 ? p : -p - 1) << ": backward " << actual[i]
                                                      << ", finite difference " << expected[i]);
        CHECK(std::fabs(actual[i] - expected[i]) <= 1e-5 * scale + 1e-5 * std::fabs(expected[i]));
        checked += p >= 0;
      }
      CHECK(checked == 3 * (25 + 5 + 10));
    }
  }
}
