// Tests for mistakes.hpp: every LayerNorm variant against PyTorch running the mistaken code (golden
// layer_norm_variants.json), the ids, and the edge cases (a variance of no values is NaN, as in PyTorch).
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "blockscope/error.hpp"
#include "blockscope/mistakes.hpp"
#include "support/golden.hpp"

using namespace blockscope;

TEST_CASE("every LayerNorm variant equals PyTorch running that mistake", "[mistakes][golden]") {
  const auto& all = golden::cases("layer_norm_variants.json");
  CHECK(all.size() == 3 * layer_norm_variants().size());
  for (const auto& c : all) {
    SECTION(c.name) {
      const LayerNormVariant v = parse_layer_norm_variant(c.config().at("variant").get<std::string>());
      const Tensor x = c.input("x"), g = c.param("gamma"), b = c.param("beta");
      const std::vector<float> y = layer_norm_variant(v, x.data, g.data, b.data, c.config().at("eps").get<float>());
      golden::check_close(c.name, y, c.output("y"));
    }
  }
}

TEST_CASE("variant ids are stable and parse back; an unknown one names the ids", "[mistakes]") {
  for (LayerNormVariant v : layer_norm_variants()) CHECK(parse_layer_norm_variant(layer_norm_variant_id(v)) == v);
  CHECK(std::string(layer_norm_variant_id(layer_norm_variants().front())) == "correct");
  CHECK_THROWS_WITH(parse_layer_norm_variant("biased"),
                    Catch::Contains("unknown LayerNorm variant 'biased'") && Catch::Contains("wrong-axis"));
}

TEST_CASE("the variants tell the mistakes apart and refuse what LayerNorm refuses", "[mistakes]") {
  const std::vector<float> x = {1, 3, 5, 7, 2, 4, 6, 9}, g = {1, 1, 1, 1}, b = {0, 0, 0, 0};
  const auto correct = layer_norm_variant(LayerNormVariant::Correct, x, g, b, 1e-5f);
  for (LayerNormVariant v : layer_norm_variants()) {
    if (v == LayerNormVariant::Correct || v == LayerNormVariant::NoAffine) continue;  // gamma 1, beta 0: no-affine = correct
    const auto y = layer_norm_variant(v, x, g, b, 1e-5f);
    double diff = 0;
    for (size_t i = 0; i < y.size(); ++i) diff = std::max(diff, std::fabs(double(y[i]) - correct[i]));
    CHECK(diff > 1e-6);  // distinguishable from the correct output
  }
  // Unbiased variance over one feature divides by n - 1 = 0: NaN, as torch.var.
  const std::vector<float> one = {2.0f}, g1 = {1.0f}, b1 = {0.0f};
  CHECK(std::isnan(layer_norm_variant(LayerNormVariant::UnbiasedVariance, one, g1, b1, 1e-5f)[0]));
  CHECK_THROWS_WITH(layer_norm_variant(LayerNormVariant::NoEps, std::vector<float>{1, 2, 3}, g, b, 1e-5f),
                    Catch::Contains("not a whole number of rows"));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  CHECK_THROWS_WITH(layer_norm_variant(LayerNormVariant::NoEps, std::vector<float>{1, nan, 3, 4}, g, b, 1e-5f),
                    Catch::Contains("LayerNorm input"));
}
