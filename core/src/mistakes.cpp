// The learners' mistakes of mistakes.hpp, each computed as the mistaken code would compute it.
#include "blockscope/mistakes.hpp"

#include <cmath>
#include <limits>

#include "blockscope/checked.hpp"
#include "blockscope/error.hpp"
#include "blockscope/layer_norm.hpp"

namespace blockscope {

namespace {
constexpr LayerNormVariant kVariants[] = {LayerNormVariant::Correct,          LayerNormVariant::WrongAxis,
                                          LayerNormVariant::UnbiasedVariance, LayerNormVariant::EpsOutsideSqrt,
                                          LayerNormVariant::NoEps,            LayerNormVariant::NoAffine};
}  // namespace

std::span<const LayerNormVariant> layer_norm_variants() { return kVariants; }

const char* layer_norm_variant_id(LayerNormVariant v) {
  switch (v) {
    case LayerNormVariant::Correct: return "correct";
    case LayerNormVariant::WrongAxis: return "wrong-axis";
    case LayerNormVariant::UnbiasedVariance: return "unbiased-variance";
    case LayerNormVariant::EpsOutsideSqrt: return "eps-outside-sqrt";
    case LayerNormVariant::NoEps: return "no-eps";
    case LayerNormVariant::NoAffine: return "no-affine";
  }
  return "?";
}

LayerNormVariant parse_layer_norm_variant(const std::string& id) {
  for (LayerNormVariant v : kVariants)
    if (id == layer_norm_variant_id(v)) return v;
  throw Error("unknown LayerNorm variant '" + id +
              "' (expected correct, wrong-axis, unbiased-variance, eps-outside-sqrt, no-eps or no-affine)");
}

std::vector<float> layer_norm_variant(LayerNormVariant v, std::span<const float> x, std::span<const float> gamma,
                                      std::span<const float> beta, float eps) {
  // The argument checks (and the rows) are layer_norm_trace's, so every variant refuses what LayerNorm refuses.
  const LayerNormTrace t = layer_norm_trace(x, gamma, beta, eps);
  if (v == LayerNormVariant::Correct) return t.output;
  const int64_t R = t.rows, D = t.dim;
  const bool by_column = v == LayerNormVariant::WrongAxis;
  // Statistics over groups: each row's D features, or (wrong axis) each column's R rows.
  const int64_t groups = by_column ? D : R, n = by_column ? R : D;
  const auto at = [&](int64_t g, int64_t k) { return by_column ? k * D + g : g * D + k; };
  std::vector<float> out(x.size());
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (int64_t g = 0; g < groups; ++g) {
    double mean = 0.0;
    for (int64_t k = 0; k < n; ++k) mean += x[static_cast<size_t>(at(g, k))];
    mean /= static_cast<double>(n);
    double ss = 0.0;
    for (int64_t k = 0; k < n; ++k) {
      const double c = x[static_cast<size_t>(at(g, k))] - mean;
      ss += c * c;
    }
    const bool unbiased = v == LayerNormVariant::UnbiasedVariance;
    const double var = unbiased ? (n > 1 ? ss / static_cast<double>(n - 1) : nan) : ss / static_cast<double>(n);
    double denom = std::sqrt(var + eps);
    if (v == LayerNormVariant::EpsOutsideSqrt) denom = std::sqrt(var) + eps;
    if (v == LayerNormVariant::NoEps) denom = std::sqrt(var);
    const bool affine = v != LayerNormVariant::NoAffine;
    for (int64_t k = 0; k < n; ++k) {
      const auto i = static_cast<size_t>(at(g, k));
      const auto f = static_cast<size_t>(i % static_cast<size_t>(D));  // the feature: gamma and beta's index
      const double y = (x[i] - mean) / denom;
      out[i] = static_cast<float>(affine ? y * gamma[f] + beta[f] : y);
    }
  }
  return out;
}

}  // namespace blockscope
