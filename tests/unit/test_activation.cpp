// Tests for activation.hpp: the lesson's GELU table, the dip, tanh vs erf, PyTorch goldens, derivatives.
#include <catch2/catch.hpp>
#include <cmath>

#include "blockscope/activation.hpp"
#include "blockscope/error.hpp"
#include "support/golden.hpp"

using namespace blockscope;

TEST_CASE("gelu-tanh reproduces the lesson's table at -3..3", "[activation][lesson]") {
  // Lesson LM4-T3 and book 4.3: GELU(-1) ~ -0.159, GELU(1) ~ 0.841.
  const Tensor x({8}, {-3, -1, -0.5f, 0, 0.5f, 1, 2, 3});
  const float expected[] = {-0.0036f, -0.1588f, -0.1543f, 0.0f, 0.3457f, 0.8412f, 1.9546f, 2.9964f};
  const Tensor y = gelu(x);
  for (int i = 0; i < 8; ++i) {
    INFO("x = " << x.data[i]);
    CHECK(std::round(y.data[i] * 1e4f) / 1e4f == Approx(expected[i]).margin(1e-6));
  }
}

TEST_CASE("gelu-tanh dips to about -0.17 near x = -0.75", "[activation][lesson]") {
  Tensor x({3001});
  for (int i = 0; i < 3001; ++i) x.data[i] = -3.0f + 0.002f * i;
  const Tensor y = gelu(x);
  const auto it = std::min_element(y.data.begin(), y.data.end());
  const float x_min = x.data[it - y.data.begin()];
  CHECK(*it == Approx(-0.17f).margin(0.005f));
  CHECK(x_min == Approx(-0.75f).margin(0.03f));
}

TEST_CASE("gelu tanh approximation stays within 1e-3 of the exact erf form", "[activation]") {
  Tensor x({1201});
  for (int i = 0; i < 1201; ++i) x.data[i] = -6.0f + 0.01f * i;
  const Tensor a = gelu(x, GeluApproximation::Tanh), e = gelu(x, GeluApproximation::None);
  float worst = 0.0f;
  for (int i = 0; i < 1201; ++i) worst = std::max(worst, std::fabs(a.data[i] - e.data[i]));
  CHECK(worst < 1e-3f);
  CHECK(worst > 1e-4f);  // they are different functions
}

TEST_CASE("activations match F.gelu / F.relu and their autograd derivatives", "[activation][golden]") {
  for (const auto& c : golden::cases("activations.json")) {
    SECTION(c.name) {
      const Activation kind = parse_activation(c.name.c_str());
      const Tensor x = c.input("x");
      golden::check_close(std::string("activation ") + c.name, activate(kind, x), c.output("y"));
      if (c.has_output("dy"))
        golden::check_close(std::string("derivative ") + c.name, activation_derivative(kind, x), c.output("dy"));
    }
  }
}

TEST_CASE("relu zeroes negatives and unknown activation names are rejected", "[activation][errors]") {
  const Tensor y = relu(Tensor({3}, {-1, 0, 2}));
  CHECK(y.data == std::vector<float>{0, 0, 2});
  CHECK_THROWS_WITH(parse_activation("swish"), Catch::Contains("unknown activation 'swish'"));
  CHECK_THROWS_WITH(gelu(Tensor({2}, {1, NAN})), Catch::Contains("non-finite"));
}
