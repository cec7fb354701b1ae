// The learners' mistakes of mistakes.hpp: their ids, which module shows which, and the LayerNorm and activation
// ones, each computed as the mistaken code would compute it (the feed-forward, attention and block ones are in
// module_mistakes.cpp).
#include "blockscope/mistakes.hpp"

#include <cmath>
#include <limits>

#include "blockscope/checked.hpp"
#include "blockscope/error.hpp"
#include "blockscope/layer_norm.hpp"

namespace blockscope {

namespace {
struct Entry {
  Mistake m;
  const char* id;
  MistakeSite site;
};
constexpr Entry kTable[] = {
    {Mistake::Correct, "correct", MistakeSite::Module},
    {Mistake::WrongAxis, "wrong-axis", MistakeSite::LayerNorm},
    {Mistake::UnbiasedVariance, "unbiased-variance", MistakeSite::LayerNorm},
    {Mistake::EpsOutsideSqrt, "eps-outside-sqrt", MistakeSite::LayerNorm},
    {Mistake::NoEps, "no-eps", MistakeSite::LayerNorm},
    {Mistake::NoAffine, "no-affine", MistakeSite::LayerNorm},
    {Mistake::TanhApproximation, "tanh-approximation", MistakeSite::Activation},
    {Mistake::ExactErf, "exact-erf", MistakeSite::Activation},
    {Mistake::ReluInsteadOfGelu, "relu-instead-of-gelu", MistakeSite::Activation},
    {Mistake::NoActivation, "no-activation", MistakeSite::FeedForward},
    {Mistake::AcrossSequence, "across-sequence", MistakeSite::FeedForward},
    {Mistake::NoScale, "no-scale", MistakeSite::Attention},
    {Mistake::NoCausalMask, "no-causal-mask", MistakeSite::Attention},
    {Mistake::SoftmaxWrongAxis, "softmax-wrong-axis", MistakeSite::Attention},
    {Mistake::NoAttentionResidual, "no-attention-residual", MistakeSite::Wiring},
    {Mistake::NoFfnResidual, "no-ffn-residual", MistakeSite::Wiring},
    {Mistake::PostNorm, "post-norm", MistakeSite::Wiring},
    {Mistake::PreNorm, "pre-norm", MistakeSite::Wiring},
};
constexpr Mistake kAll[] = {
    Mistake::Correct,          Mistake::WrongAxis,         Mistake::UnbiasedVariance, Mistake::EpsOutsideSqrt,
    Mistake::NoEps,            Mistake::NoAffine,          Mistake::TanhApproximation, Mistake::ExactErf,
    Mistake::ReluInsteadOfGelu, Mistake::NoActivation,     Mistake::AcrossSequence,   Mistake::NoScale,
    Mistake::NoCausalMask,     Mistake::SoftmaxWrongAxis,  Mistake::NoAttentionResidual, Mistake::NoFfnResidual,
    Mistake::PostNorm,         Mistake::PreNorm};
static_assert(std::size(kAll) == std::size(kTable));
constexpr Mistake kLayerNorm[] = {Mistake::Correct, Mistake::WrongAxis, Mistake::UnbiasedVariance,
                                  Mistake::EpsOutsideSqrt, Mistake::NoEps, Mistake::NoAffine};

const Entry& entry(Mistake m) {
  for (const Entry& e : kTable)
    if (e.m == m) return e;
  return kTable[0];
}
}  // namespace

const char* mistake_id(Mistake m) { return entry(m).id; }
MistakeSite mistake_site(Mistake m) { return entry(m).site; }
std::span<const Mistake> all_mistakes() { return kAll; }
std::span<const Mistake> layer_norm_mistakes() { return kLayerNorm; }

Mistake parse_mistake(const std::string& id) {
  for (const Entry& e : kTable)
    if (id == e.id) return e.m;
  std::string ids;
  for (const Entry& e : kTable) ids += std::string(ids.empty() ? "" : ", ") + e.id;
  throw Error("unknown mistake '" + id + "' (expected one of " + ids + ")");
}

std::vector<Mistake> activation_mistakes(Activation expected) {
  std::vector<Mistake> out = {Mistake::Correct};
  if (expected == Activation::GeluErf) out.push_back(Mistake::TanhApproximation);
  if (expected == Activation::GeluTanh) out.push_back(Mistake::ExactErf);
  if (expected == Activation::GeluErf || expected == Activation::GeluTanh) out.push_back(Mistake::ReluInsteadOfGelu);
  return out;
}

std::vector<float> activation_mistake(Mistake m, Activation expected, std::span<const float> x) {
  Activation kind = expected;
  if (m == Mistake::TanhApproximation) kind = Activation::GeluTanh;
  else if (m == Mistake::ExactErf) kind = Activation::GeluErf;
  else if (m == Mistake::ReluInsteadOfGelu) kind = Activation::Relu;
  else if (m != Mistake::Correct)
    throw Error(std::string("'") + mistake_id(m) + "' is not a mistake an activation can make");
  for (float v : x)
    if (!std::isfinite(v)) throw Error("activation input contains NaN or infinity");
  std::vector<float> out(x.size());
  activation_forward(kind, out.data(), x.data(), static_cast<int64_t>(x.size()));
  return out;
}

std::vector<float> layer_norm_mistake(Mistake m, std::span<const float> x, std::span<const float> gamma,
                                      std::span<const float> beta, float eps) {
  if (m != Mistake::Correct && mistake_site(m) != MistakeSite::LayerNorm)
    throw Error(std::string("'") + mistake_id(m) + "' is not a mistake LayerNorm can make");
  // The argument checks (and the rows) are layer_norm_trace's, so every mistake refuses what LayerNorm refuses.
  const LayerNormTrace t = layer_norm_trace(x, gamma, beta, eps);
  if (m == Mistake::Correct) return t.output;
  const int64_t R = t.rows, D = t.dim;
  const bool by_column = m == Mistake::WrongAxis;
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
    const bool unbiased = m == Mistake::UnbiasedVariance;
    const double var = unbiased ? (n > 1 ? ss / static_cast<double>(n - 1) : nan) : ss / static_cast<double>(n);
    double denom = std::sqrt(var + eps);
    if (m == Mistake::EpsOutsideSqrt) denom = std::sqrt(var) + eps;
    if (m == Mistake::NoEps) denom = std::sqrt(var);
    const bool affine = m != Mistake::NoAffine;
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
