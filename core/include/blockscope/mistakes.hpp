// The mistakes a learner's own implementation commonly contains, computed by the core, so that a widget can tell
// which one reproduces the numbers a learner pasted (issue 24's "check your implementation"). Each mistake has a
// stable id pages and LMSs may record. LayerNorm's, as seed 001's from-scratch exercise makes them:
//   correct            (x - mean) / sqrt(var + eps) * gamma + beta over the last axis, biased variance
//   wrong-axis         statistics over the rows (dim 0, e.g. x.mean(0)) instead of each row's features
//   unbiased-variance  var with Bessel's correction, / (n - 1) (torch.var's default)
//   eps-outside-sqrt   (x - mean) / (sqrt(var) + eps)
//   no-eps             (x - mean) / sqrt(var)
//   no-affine          gamma and beta left out
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace blockscope {

enum class LayerNormVariant { Correct, WrongAxis, UnbiasedVariance, EpsOutsideSqrt, NoEps, NoAffine };

// Every variant, in the order a check tries them (correct first).
std::span<const LayerNormVariant> layer_norm_variants();
const char* layer_norm_variant_id(LayerNormVariant v);
LayerNormVariant parse_layer_norm_variant(const std::string& id);  // Error naming the ids on an unknown one

// x (rows, d) with d = gamma.size() as variant `v` computes it (statistics in double, as the core's LayerNorm).
// Same argument checks as layer_norm_trace. As in PyTorch, a variance of no values (unbiased-variance over one
// feature) is NaN, and no-eps over a constant row divides 0 by 0: NaN too. Those NaNs are the mistake's own
// output (what the learner's code prints), not an error.
std::vector<float> layer_norm_variant(LayerNormVariant v, std::span<const float> x, std::span<const float> gamma,
                                      std::span<const float> beta, float eps);

}  // namespace blockscope
