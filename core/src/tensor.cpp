// Tensor shape helpers and constructors.
#include "blockscope/tensor.hpp"

#include <cmath>
#include <limits>

#include "blockscope/checked.hpp"
#include "blockscope/error.hpp"
#include "grow_only.hpp"

namespace blockscope {

int64_t shape_numel(const Shape& shape) {
  int64_t n = 1;
  for (const int64_t d : shape) {
    require(d >= 0, "negative dimension ", d, " in shape ", shape_str(shape));
    int64_t r = 0;
    require(!__builtin_mul_overflow(n, d, &r), "shape ", shape_str(shape), " has too many elements");
    n = r;
  }
  return n;
}

std::string shape_str(const Shape& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  if (shape.size() == 1) s += ',';
  return s + ')';
}

void require_finite(const float* data, int64_t n, const char* what) {
  for (int64_t i = 0; i < n; ++i)
    require(std::isfinite(data[i]), what, " contains a non-finite value (", data[i], ") at flat index ", i);
}

Tensor::Tensor(Shape s) : shape(std::move(s)), data(to_size(shape_numel(shape), "a tensor's size"), 0.0f) {}

Tensor::Tensor(Shape s, std::vector<float> d) : shape(std::move(s)), data(std::move(d)) {
  const int64_t n = shape_numel(shape);
  require(n == static_cast<int64_t>(data.size()), "tensor of shape ", shape_str(shape), " needs ", n,
          " values, got ", data.size());
}

int64_t Tensor::dim(int64_t i) const {
  const int64_t nd = ndim();
  const int64_t j = i < 0 ? i + nd : i;
  require(j >= 0 && j < nd, "dimension ", i, " out of range for a tensor of shape ", shape_str(shape));
  return shape[static_cast<size_t>(j)];
}

int64_t Tensor::rows() const {
  require(!shape.empty(), "a scalar tensor has no last axis");
  const int64_t last = shape.back();
  return last == 0 ? 0 : numel() / last;
}

float* detail::grow_to(FloatBuffer& buf, size_t n) {
  if (buf.size() < n) buf.resize(n);
  return buf.data();
}

}  // namespace blockscope
