// LayerNorm (book ch. 4.2): normalizes every vector over its last axis to mean 0 and variance 1 with the
// biased variance and eps = 1e-5, then applies the learnable `scale` (gamma) and `shift` (beta).
// Matches torch.nn.LayerNorm(emb_dim) with weight = scale, bias = shift.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "blockscope/checked.hpp"
#include "blockscope/param_arena.hpp"
#include "blockscope/tensor.hpp"

namespace blockscope {

// Every intermediate of a LayerNorm over `rows` vectors, for step-by-step teaching: per-row mean, biased
// variance and rstd = 1/sqrt(var + eps) (rows), the normalized values before the affine part and the
// output gamma * normalized + beta (rows, d).
struct LayerNormTrace {
  int64_t rows = 0, dim = 0;
  std::vector<float> mean, var, rstd, normalized, output;
};

// LayerNorm of x (rows, d) with d = gamma.size(). Throws Error if gamma and beta differ in length, x is not
// a whole number of rows, eps is not positive, or any value is NaN/inf.
LayerNormTrace layer_norm_trace(std::span<const float> x, std::span<const float> gamma, std::span<const float> beta,
                                float eps = 1e-5f);

class LayerNorm {
 public:
  // Standalone LayerNorm owning its parameters (scale = 1, shift = 0). Throws Error if emb_dim <= 0 or
  // eps is not a positive finite number.
  explicit LayerNorm(int64_t emb_dim, float eps = 1e-5f);
  // LayerNorm whose "<prefix>scale" and "<prefix>shift" live in `arena`.
  LayerNorm(ParamArena& arena, const std::string& prefix, int64_t emb_dim, float eps = 1e-5f);
  static int64_t num_params(int64_t emb_dim) { return checked_mul(2, emb_dim, "LayerNorm's parameter count"); }

  void reset_parameters();  // scale = 1, shift = 0, as the book initializes them

  // x (..., emb_dim) -> same shape. Records per-row mean and rstd (see last_mean / last_rstd).
  Tensor forward(const Tensor& x);
  // Raw form: out, inp (rows, emb_dim); mean, rstd (rows) may be null.
  void forward(float* out, float* mean, float* rstd, const float* inp, int64_t rows) const;
  // Backward of the raw forward, given its mean and rstd: dinp (rows, emb_dim) accumulates (null: skipped);
  // d scale and d shift accumulate at grads(scale) and grads(shift).
  void backward(float* dinp, const float* dout, const float* inp, const float* mean, const float* rstd,
                int64_t rows, const GradMap& grads) const;

  std::span<float> scale() { return {scale_, static_cast<size_t>(emb_dim_)}; }
  std::span<float> shift() { return {shift_, static_cast<size_t>(emb_dim_)}; }
  std::span<const float> scale() const { return {scale_, static_cast<size_t>(emb_dim_)}; }
  std::span<const float> shift() const { return {shift_, static_cast<size_t>(emb_dim_)}; }
  int64_t emb_dim() const { return emb_dim_; }
  ParamArena* own_params() { return own_.get(); }  // a standalone LayerNorm's "scale" and "shift"
  float eps() const { return eps_; }
  // Per-row mean and 1/sqrt(var + eps) of the last Tensor forward, shape x.shape[:-1] flattened.
  const std::vector<float>& last_mean() const { return last_mean_; }
  const std::vector<float>& last_rstd() const { return last_rstd_; }

 private:
  std::unique_ptr<ParamArena> own_;  // set only for a standalone LayerNorm
  float* scale_ = nullptr;
  float* shift_ = nullptr;
  int64_t emb_dim_ = 0;
  float eps_ = 1e-5f;
  std::vector<float> last_mean_, last_rstd_;
};

}  // namespace blockscope
