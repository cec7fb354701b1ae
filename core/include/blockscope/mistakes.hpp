// The mistakes a learner's own implementation commonly contains, computed by the core, so that a widget can tell
// which one reproduces the numbers a learner pasted (issue 24's "check your implementation") and can inject one
// into a block's forward pass ("break a step"). Each mistake has a stable id pages and LMSs may record; each
// belongs to one site, the part of the block where the mistaken code runs:
//
// LayerNorm (seed 001's from-scratch exercise)
//   wrong-axis            statistics over the rows (dim 0, e.g. x.mean(0)) instead of each row's features
//   unbiased-variance     var with Bessel's correction, / (n - 1) (torch.var's default)
//   eps-outside-sqrt      (x - mean) / (sqrt(var) + eps)
//   no-eps                (x - mean) / sqrt(var)
//   no-affine             gamma and beta left out
// Activation (the GELU widget, and the activation inside the feed-forward network)
//   tanh-approximation    GELU's tanh form where the exact (erf) one is expected
//   exact-erf             the exact erf GELU where the tanh form is expected (GPT-2's, the book's)
//   relu-instead-of-gelu  ReLU
// Feed-forward network
//   no-activation         Linear -> Linear with nothing between (the two collapse into one linear map)
//   across-sequence       the FFN applied along the sequence axis: ffn(x.transpose(-2, -1)).transpose(-2, -1),
//                         which mixes positions (shape-compatible only when T == emb_dim)
// Attention
//   no-scale              scores not divided by sqrt(head_dim)
//   no-causal-mask        every token sees the later ones (only a mistake where attention is causal)
//   softmax-wrong-axis    softmax over the queries (dim=-2) instead of the keys (dim=-1)
// Block wiring
//   no-attention-residual the first shortcut left out: x = att(norm1(x)) instead of x + att(norm1(x))
//   no-ffn-residual       the second shortcut left out
//   post-norm             the norms after each addition where the block is pre-norm
//   pre-norm              the norms before each sublayer where the block is post-norm
//
// "correct" is the module itself. Every function below computes in the order a learner's float32 PyTorch code
// does (statistics and dot products in double, stored as float32), so a learner's output matches to ~1e-6.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "blockscope/ops.hpp"

namespace blockscope {

class FeedForward;
class MultiHeadAttention;
class TransformerBlock;

enum class Mistake {
  Correct,
  WrongAxis, UnbiasedVariance, EpsOutsideSqrt, NoEps, NoAffine,
  TanhApproximation, ExactErf, ReluInsteadOfGelu,
  NoActivation, AcrossSequence,
  NoScale, NoCausalMask, SoftmaxWrongAxis,
  NoAttentionResidual, NoFfnResidual, PostNorm, PreNorm,
};
enum class MistakeSite { Module, LayerNorm, Activation, FeedForward, Attention, Wiring };

const char* mistake_id(Mistake m);
MistakeSite mistake_site(Mistake m);
Mistake parse_mistake(const std::string& id);  // Error naming the ids on an unknown one
std::span<const Mistake> all_mistakes();      // correct first, then in the order of the list above

// The mistakes each module can show, correct first: the order a check tries them in.
std::span<const Mistake> layer_norm_mistakes();
std::vector<Mistake> activation_mistakes(Activation expected);             // GELU expected: the GELU ones
std::vector<Mistake> feed_forward_mistakes(const FeedForward& ff, int64_t T);  // across-sequence when T == d
std::vector<Mistake> attention_mistakes(const MultiHeadAttention& att);
std::vector<Mistake> block_mistakes(const TransformerBlock& block, int64_t T);

// x (rows, d) with d = gamma.size() as LayerNorm with mistake `m` (correct or a LayerNorm one) computes it.
// Same argument checks as layer_norm_trace. As in PyTorch, a variance of no values (unbiased-variance over one
// feature) is NaN, and no-eps over a constant row divides 0 by 0: NaN too. Those NaNs are the mistake's own
// output (what the learner's code prints), not an error.
std::vector<float> layer_norm_mistake(Mistake m, std::span<const float> x, std::span<const float> gamma,
                                      std::span<const float> beta, float eps);

// The activation `expected` of x, or what mistake `m` (an activation one) computes instead.
std::vector<float> activation_mistake(Mistake m, Activation expected, std::span<const float> x);

// x (B, T, d) through `ff` with mistake `m` (correct, an activation or a feed-forward one) -> (B, T, d).
std::vector<float> feed_forward_mistake(const FeedForward& ff, Mistake m, std::span<const float> x, int64_t B,
                                        int64_t T);

// x (B, T, d_in) through `att` with mistake `m` (correct or an attention one) -> (B, T, d_out).
std::vector<float> attention_mistake(const MultiHeadAttention& att, Mistake m, std::span<const float> x, int64_t B,
                                     int64_t T);

// One step of a block's forward pass: its id as the block's inspection names it (input, norm1, att, add1, norm2,
// ff, add2) and its values (B, T, emb_dim).
struct BlockStep {
  std::string id;
  std::vector<float> values;
};
// Every step of the block's forward pass over x (B, T, emb_dim), in its wiring's order, with mistake `m` where it
// fits: a LayerNorm mistake in both norms (a learner's LayerNorm class serves both), an activation or feed-forward
// one in ff, an attention one in att, a wiring one in the block. `at_step` ("norm1", "norm2", ...; empty: every
// step it fits) confines it to one step, as the block explorer's "break a step" does. Dropout is off.
std::vector<BlockStep> block_mistake(const TransformerBlock& block, Mistake m, std::span<const float> x, int64_t B,
                                     int64_t T, const std::string& at_step = "");

}  // namespace blockscope
