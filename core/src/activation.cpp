// Tensor wrappers over the activation kernels.
#include "blockscope/activation.hpp"

#include "blockscope/error.hpp"

namespace blockscope {

Tensor activate(Activation kind, const Tensor& x) {
  require_finite(x.ptr(), x.numel(), "activation input");
  Tensor y(x.shape);
  activation_forward(kind, y.ptr(), x.ptr(), x.numel());
  return y;
}

Tensor activation_derivative(Activation kind, const Tensor& x) {
  require_finite(x.ptr(), x.numel(), "activation input");
  Tensor y(x.shape);
  activation_derivative(kind, y.ptr(), x.ptr(), x.numel());
  return y;
}

Tensor gelu(const Tensor& x, GeluApproximation approximate) {
  return activate(approximate == GeluApproximation::Tanh ? Activation::GeluTanh : Activation::GeluErf, x);
}

Tensor relu(const Tensor& x) { return activate(Activation::Relu, x); }

}  // namespace blockscope
