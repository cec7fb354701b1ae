// Tests for layer_norm.hpp: the lesson's numbers, PyTorch goldens, statistics, and bad input.
#include <catch2/catch.hpp>
#include <cmath>

#include "blockscope/error.hpp"
#include "blockscope/layer_norm.hpp"
#include "support/golden.hpp"

using namespace blockscope;

TEST_CASE("layernorm of 1,3,5,7 matches the lesson", "[layer_norm][lesson]") {
  // Lesson 82: nn.LayerNorm(4, elementwise_affine=False, eps=1e-5) of [1, 3, 5, 7].
  LayerNorm ln(4);
  const Tensor y = ln.forward(Tensor({1, 4}, {1, 3, 5, 7}));
  const float expected[] = {-1.3416f, -0.4472f, 0.4472f, 1.3416f};
  for (int i = 0; i < 4; ++i) CHECK(y.data[i] == Approx(expected[i]).margin(5e-5));
  CHECK(ln.last_mean()[0] == Approx(4.0f));
  // biased variance 5, so rstd = 1/sqrt(5 + 1e-5)
  CHECK(ln.last_rstd()[0] == Approx(1.0 / std::sqrt(5.0 + 1e-5)).epsilon(1e-6));
}

TEST_CASE("layernorm matches torch.nn.LayerNorm on every golden case", "[layer_norm][golden]") {
  for (const auto& c : golden::cases("layer_norm.json")) {
    SECTION(c.name) {
      LayerNorm ln(c.config().at("emb_dim").get<int64_t>(), c.config().at("eps").get<float>());
      const Tensor scale = c.param("scale"), shift = c.param("shift");
      std::copy(scale.data.begin(), scale.data.end(), ln.scale().begin());
      std::copy(shift.data.begin(), shift.data.end(), ln.shift().begin());
      const Tensor y = ln.forward(c.input("x"));
      golden::check_close("LayerNorm", y, c.output("y"));
      golden::check_close("LayerNorm mean", ln.last_mean(), c.output("mean"));
      golden::check_close("LayerNorm rstd", ln.last_rstd(), c.output("rstd"));
    }
  }
}

TEST_CASE("layernorm output has mean 0 and variance var/(var+eps) per row before the affine part", "[layer_norm]") {
  LayerNorm ln(6);
  const Tensor x({2, 6}, {0.2f, 0.5f, 0.9f, 0.f, 0.f, 0.3f, -4, 2, 7, 1, 0, 9});
  const Tensor y = ln.forward(x);
  for (int r = 0; r < 2; ++r) {
    double xm = 0, xv = 0, m = 0, v = 0;
    for (int c = 0; c < 6; ++c) xm += x.data[r * 6 + c] / 6.0;
    for (int c = 0; c < 6; ++c) xv += (x.data[r * 6 + c] - xm) * (x.data[r * 6 + c] - xm) / 6.0;
    for (int c = 0; c < 6; ++c) m += y.data[r * 6 + c] / 6.0;
    for (int c = 0; c < 6; ++c) v += (y.data[r * 6 + c] - m) * (y.data[r * 6 + c] - m) / 6.0;
    CHECK(m == Approx(0.0).margin(1e-6));
    // eps = 1e-5 keeps the variance just under 1: visibly so for the small first row (var ~ 0.1).
    CHECK(v == Approx(xv / (xv + 1e-5)).epsilon(1e-6));
  }
}

TEST_CASE("layernorm rejects a wrong last dimension, bad sizes and bad eps", "[layer_norm][errors]") {
  LayerNorm ln(4);
  CHECK_THROWS_WITH(ln.forward(Tensor({2, 5})), Catch::Contains("LayerNorm(4)") && Catch::Contains("(2, 5)"));
  CHECK_THROWS_WITH(LayerNorm(0), Catch::Contains("emb_dim must be positive, got 0"));
  CHECK_THROWS_WITH(LayerNorm(-3), Catch::Contains("got -3"));
  CHECK_THROWS_WITH(LayerNorm(4, 0.0f), Catch::Contains("eps must be a positive finite number"));
  CHECK_THROWS_WITH(LayerNorm(4, NAN), Catch::Contains("eps"));
}

TEST_CASE("layernorm rejects NaN and infinite input, naming the index, and keeps working", "[layer_norm][errors]") {
  LayerNorm ln(3);
  CHECK_THROWS_WITH(ln.forward(Tensor({2, 3}, {1, NAN, 3, 1, 2, 3})),
                    Catch::Contains("LayerNorm input contains a non-finite value") && Catch::Contains("index 1"));
  CHECK_THROWS_WITH(ln.forward(Tensor({1, 3}, {1, 2, INFINITY})), Catch::Contains("index 2"));
  const Tensor y = ln.forward(Tensor({1, 3}, {1, 2, 3}));
  CHECK(y.data[0] == Approx(-1.2247f).margin(1e-4));
}

TEST_CASE("layer_norm_trace exposes every intermediate and matches LayerNorm", "[layer_norm]") {
  const std::vector<float> x = {1, 3, 5, 7, 2, 2, 2, 6};
  const std::vector<float> gamma = {1, 2, 1, 0.5f}, beta = {0, 0, 1, -1};
  const LayerNormTrace t = layer_norm_trace(x, gamma, beta);
  REQUIRE(t.rows == 2);
  CHECK(t.mean == std::vector<float>{4, 3});
  CHECK(t.var == std::vector<float>{5, 3});
  CHECK(t.normalized[0] == Approx(-1.3416f).margin(5e-5));
  CHECK(t.output[1] == Approx(2 * t.normalized[1]));
  CHECK(t.output[7] == Approx(0.5f * t.normalized[7] - 1));
  LayerNorm ln(4);
  std::copy(gamma.begin(), gamma.end(), ln.scale().begin());
  std::copy(beta.begin(), beta.end(), ln.shift().begin());
  CHECK(ln.forward(Tensor({2, 4}, x)).data == t.output);
  CHECK_THROWS_WITH(layer_norm_trace(std::vector<float>(7, 1.0f), gamma, beta),
                    Catch::Contains("length 7 is not a whole number of rows of length 4"));
  CHECK_THROWS_WITH(layer_norm_trace(x, gamma, std::vector<float>(3)), Catch::Contains("beta has 3"));
}
