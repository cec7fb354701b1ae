// Tensor-level activations: GELU in its tanh approximation (GPT-2's, the book's default) and exact erf
// form, and ReLU for comparison. The kernels themselves are in ops.hpp.
#pragma once

#include "blockscope/ops.hpp"
#include "blockscope/tensor.hpp"

namespace blockscope {

enum class GeluApproximation { Tanh, None };  // the names of F.gelu(approximate=...)

Tensor gelu(const Tensor& x, GeluApproximation approximate = GeluApproximation::Tanh);
Tensor relu(const Tensor& x);
Tensor activate(Activation kind, const Tensor& x);
Tensor activation_derivative(Activation kind, const Tensor& x);

}  // namespace blockscope
