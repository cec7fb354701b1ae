// The feed-forward, attention and block mistakes of mistakes.hpp, computed as the mistaken code would compute
// them. They reuse the modules' own Linear layers and activation kernels, so "correct" is the module itself and
// each mistake differs from it only where the mistaken code does. Attention's scores and softmax run in double
// per head (a few tokens: the widgets' sizes), which agrees with PyTorch's float32 to ~1e-7.
#include <algorithm>
#include <cmath>
#include <limits>

#include "blockscope/checked.hpp"
#include "blockscope/error.hpp"
#include "blockscope/feed_forward.hpp"
#include "blockscope/mistakes.hpp"
#include "blockscope/multi_head_attention.hpp"
#include "blockscope/transformer_block.hpp"

namespace blockscope {

namespace {

std::string named(Mistake m) { return std::string("'") + mistake_id(m) + "'"; }

// x holds (B, T, d) finite values, B and T positive.
void check_rows(std::span<const float> x, int64_t B, int64_t T, int64_t d, const char* what) {
  require(B > 0 && T > 0, what, ": batch and sequence length must be positive, got B = ", B, ", T = ", T);
  const int64_t n = checked_mul(checked_mul(B, T, what), d, what);
  require(static_cast<int64_t>(x.size()) == n, what, " has ", x.size(), " values but (B, T, d) = (", B, ", ", T,
          ", ", d, ") needs ", n);
  for (float v : x) require(std::isfinite(v), what, " contains NaN or infinity");
}

Activation activation_of(Mistake m, Activation expected) {
  if (m == Mistake::TanhApproximation) return Activation::GeluTanh;
  if (m == Mistake::ExactErf) return Activation::GeluErf;
  if (m == Mistake::ReluInsteadOfGelu) return Activation::Relu;
  return expected;
}

// The FFN over N rows of x, with an activation mistake or none at all.
std::vector<float> ffn_rows(const FeedForward& ff, Mistake m, const float* x, int64_t N) {
  const int64_t d = ff.config().emb_dim, H = ff.config().hidden_dim;
  std::vector<float> hidden(to_size(checked_mul(N, H, "FFN hidden values"), "FFN hidden values"));
  std::vector<float> out(to_size(checked_mul(N, d, "FFN output"), "FFN output"));
  ff.fc().forward(hidden.data(), x, N);
  if (m != Mistake::NoActivation)
    activation_forward(activation_of(m, ff.config().activation), hidden.data(), hidden.data(), N * H);
  ff.proj().forward(out.data(), hidden.data(), N);
  return out;
}

// Each batch item's (T, d) matrix transposed to (d, T) (or back, with the sizes swapped).
std::vector<float> transposed(std::span<const float> x, int64_t B, int64_t rows, int64_t cols) {
  std::vector<float> out(x.size());
  for (int64_t b = 0; b < B; ++b)
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c) out[(b * cols + c) * rows + r] = x[(b * rows + r) * cols + c];
  return out;
}

}  // namespace

std::vector<Mistake> feed_forward_mistakes(const FeedForward& ff, int64_t T) {
  std::vector<Mistake> out = activation_mistakes(ff.config().activation);
  out.push_back(Mistake::NoActivation);
  if (T > 1 && T == ff.config().emb_dim) out.push_back(Mistake::AcrossSequence);
  return out;
}

std::vector<float> feed_forward_mistake(const FeedForward& ff, Mistake m, std::span<const float> x, int64_t B,
                                        int64_t T) {
  const MistakeSite site = mistake_site(m);
  require(m == Mistake::Correct || site == MistakeSite::Activation || site == MistakeSite::FeedForward, named(m),
          " is not a mistake a feed-forward network can make");
  const int64_t d = ff.config().emb_dim;
  check_rows(x, B, T, d, "FFN input");
  if (m != Mistake::AcrossSequence) return ffn_rows(ff, m, x.data(), B * T);
  require(T == d, "across-sequence applies the FFN to the sequence axis, which needs T = emb_dim (", d,
          "), got T = ", T);
  const std::vector<float> xt = transposed(x, B, T, d);
  return transposed(ffn_rows(ff, Mistake::Correct, xt.data(), B * d), B, d, T);
}

std::vector<Mistake> attention_mistakes(const MultiHeadAttention& att) {
  std::vector<Mistake> out = {Mistake::Correct, Mistake::NoScale};
  if (att.config().causal) out.push_back(Mistake::NoCausalMask);
  out.push_back(Mistake::SoftmaxWrongAxis);
  return out;
}

std::vector<float> attention_mistake(const MultiHeadAttention& att, Mistake m, std::span<const float> x, int64_t B,
                                     int64_t T) {
  require(m == Mistake::Correct || mistake_site(m) == MistakeSite::Attention, named(m),
          " is not a mistake attention can make");
  const AttentionConfig& cfg = att.config();
  check_rows(x, B, T, cfg.d_in, "attention input");
  require(T <= cfg.context_length, "sequence length ", T, " exceeds context_length ", cfg.context_length);
  const int64_t N = B * T, D = cfg.d_out, NH = cfg.num_heads, hd = att.head_dim();
  std::vector<float> q(to_size(N * D, "attention")), k(q.size()), v(q.size()), ctx(q.size(), 0.0f), out(q.size());
  att.W_query().forward(q.data(), x.data(), N);
  att.W_key().forward(k.data(), x.data(), N);
  att.W_value().forward(v.data(), x.data(), N);
  const bool masked = cfg.causal && m != Mistake::NoCausalMask;
  const double scale = m == Mistake::NoScale ? 1.0 : 1.0 / std::sqrt(static_cast<double>(hd));
  const double ninf = -std::numeric_limits<double>::infinity();
  std::vector<double> w(to_size(T * T, "attention scores"));
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < NH; ++h) {
      const auto row = [&](const std::vector<float>& a, int64_t t) { return &a[(b * T + t) * D + h * hd]; };
      for (int64_t i = 0; i < T; ++i)
        for (int64_t j = 0; j < T; ++j) {
          double s = 0.0;
          for (int64_t e = 0; e < hd; ++e) s += static_cast<double>(row(q, i)[e]) * row(k, j)[e];
          w[i * T + j] = masked && j > i ? ninf : s * scale;
        }
      // Softmax over each query's keys (a row), or with the mistake over each key's queries (a column).
      const bool by_column = m == Mistake::SoftmaxWrongAxis;
      for (int64_t g = 0; g < T; ++g) {
        const auto at = [&](int64_t e) -> double& { return by_column ? w[e * T + g] : w[g * T + e]; };
        double mx = ninf, sum = 0.0;
        for (int64_t e = 0; e < T; ++e) mx = std::max(mx, at(e));
        for (int64_t e = 0; e < T; ++e) sum += (at(e) = std::exp(at(e) - mx));
        for (int64_t e = 0; e < T; ++e) at(e) /= sum;
      }
      for (int64_t i = 0; i < T; ++i)
        for (int64_t e = 0; e < hd; ++e) {
          double s = 0.0;
          for (int64_t j = 0; j < T; ++j) s += w[i * T + j] * row(v, j)[e];
          ctx[(b * T + i) * D + h * hd + e] = static_cast<float>(s);
        }
    }
  att.out_proj().forward(out.data(), ctx.data(), N);
  return out;
}

std::vector<Mistake> block_mistakes(const TransformerBlock& block, int64_t T) {
  std::vector<Mistake> out(layer_norm_mistakes().begin(), layer_norm_mistakes().end());
  for (Mistake m : feed_forward_mistakes(block.ff(), T))
    if (m != Mistake::Correct) out.push_back(m);
  for (Mistake m : attention_mistakes(block.att()))
    if (m != Mistake::Correct) out.push_back(m);
  out.push_back(Mistake::NoAttentionResidual);
  out.push_back(Mistake::NoFfnResidual);
  out.push_back(block.norm_placement() == NormPlacement::Pre ? Mistake::PostNorm : Mistake::PreNorm);
  return out;
}

std::vector<BlockStep> block_mistake(const TransformerBlock& block, Mistake m, std::span<const float> x, int64_t B,
                                     int64_t T, const std::string& at_step) {
  const BlockConfig& cfg = block.config();
  const MistakeSite site = mistake_site(m);
  check_rows(x, B, T, cfg.emb_dim, "block input");
  require(T <= cfg.context_length, "sequence length ", T, " exceeds context_length ", cfg.context_length);
  const bool pre = cfg.norm == NormPlacement::Pre;
  require(m != Mistake::PostNorm || pre, "'post-norm' is a mistake only in a pre-norm block");
  require(m != Mistake::PreNorm || !pre, "'pre-norm' is a mistake only in a post-norm block");
  // The step each mistake belongs to (a LayerNorm one: either norm); a wiring mistake belongs to the whole block.
  const auto fits = [&](const char* step) {
    const std::string s = step;
    const bool here = (site == MistakeSite::LayerNorm && (s == "norm1" || s == "norm2")) ||
                      ((site == MistakeSite::Activation || site == MistakeSite::FeedForward) && s == "ff") ||
                      (site == MistakeSite::Attention && s == "att") ||
                      (m == Mistake::NoAttentionResidual && s == "add1") || (m == Mistake::NoFfnResidual && s == "add2");
    return here && (at_step.empty() || at_step == s);
  };
  if (!at_step.empty()) {
    static constexpr const char* kSteps[] = {"norm1", "att", "add1", "norm2", "ff", "add2"};
    require(std::find(std::begin(kSteps), std::end(kSteps), at_step) != std::end(kSteps), "unknown block step '",
            at_step, "' (expected norm1, att, add1, norm2, ff or add2)");
    require(m == Mistake::Correct || fits(at_step.c_str()), named(m), " cannot happen at step ", at_step);
  }
  const Mistake none = Mistake::Correct;
  const auto norm = [&](const LayerNorm& ln, const char* step, const std::vector<float>& in) {
    std::vector<float> out(in.size());
    const size_t n = to_size(T * cfg.emb_dim, "block norm");  // a LayerNorm mistake's axis is per sequence
    for (int64_t b = 0; b < B; ++b) {
      const std::span<const float> rows(in.data() + b * n, n);
      const auto y = layer_norm_mistake(fits(step) ? m : none, rows, ln.scale(), ln.shift(), ln.eps());
      std::copy(y.begin(), y.end(), out.begin() + static_cast<std::ptrdiff_t>(b * n));
    }
    return out;
  };
  const auto att = [&](const std::vector<float>& in) {
    return attention_mistake(block.att(), fits("att") ? m : none, in, B, T);
  };
  const auto ff = [&](const std::vector<float>& in) {
    return feed_forward_mistake(block.ff(), fits("ff") ? m : none, in, B, T);
  };
  const auto add = [&](const char* step, const std::vector<float>& shortcut, const std::vector<float>& branch) {
    if (!cfg.residual || fits(step)) return branch;
    std::vector<float> out(branch.size());
    for (size_t i = 0; i < out.size(); ++i) out[i] = shortcut[i] + branch[i];
    return out;
  };
  std::vector<BlockStep> steps;
  const auto put = [&](const char* id, std::vector<float> v) -> const std::vector<float>& {
    steps.push_back({id, std::move(v)});
    return steps.back().values;
  };
  steps.reserve(7);
  const std::vector<float> in(x.begin(), x.end());
  put("input", in);
  if (pre != (m == Mistake::PostNorm || m == Mistake::PreNorm)) {  // pre-norm wiring
    const auto& n1 = put("norm1", norm(block.norm1(), "norm1", in));
    const auto& a = put("att", att(n1));
    const auto& r1 = put("add1", add("add1", in, a));
    const auto& n2 = put("norm2", norm(block.norm2(), "norm2", r1));
    const auto& f = put("ff", ff(n2));
    put("add2", add("add2", r1, f));
  } else {  // post-norm wiring
    const auto& a = put("att", att(in));
    const auto& r1 = put("add1", add("add1", in, a));
    const auto& n1 = put("norm1", norm(block.norm1(), "norm1", r1));
    const auto& f = put("ff", ff(n1));
    const auto& r2 = put("add2", add("add2", n1, f));
    put("norm2", norm(block.norm2(), "norm2", r2));
  }
  return steps;
}

}  // namespace blockscope
