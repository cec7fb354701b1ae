// A minimal owning float32 tensor: a shape and a contiguous row-major buffer.
// It is the public currency of the component API; the hot paths work on raw pointers and Eigen maps.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
#include <string>
#include <vector>

namespace blockscope {

// Allocates on 64-byte boundaries (a cache line; the widest vector, AVX-512). Eigen peels unaligned heads of
// some reductions and small products one element at a time, so with -march=native a buffer's address mod 64
// would change the order of float sums from run to run; buffers that always start at 64 bytes keep training
// bit-reproducible.
template <typename T>
struct AlignedAllocator {
  using value_type = T;
  static constexpr std::align_val_t kAlign{64};
  AlignedAllocator() = default;
  template <typename U>
  AlignedAllocator(const AlignedAllocator<U>&) {}
  T* allocate(size_t n) {
    if (n > static_cast<size_t>(-1) / sizeof(T)) throw std::bad_array_new_length();  // n * sizeof(T) would wrap
    return static_cast<T*>(::operator new(n * sizeof(T), kAlign));
  }
  void deallocate(T* p, size_t) { ::operator delete(p, kAlign); }
  template <typename U>
  bool operator==(const AlignedAllocator<U>&) const { return true; }
};

// The float buffers the core computes in: parameters, gradients, activations, workspaces.
using FloatBuffer = std::vector<float, AlignedAllocator<float>>;

using Shape = std::vector<int64_t>;

// Product of the dimensions; throws Error on a negative dimension or int64 overflow.
int64_t shape_numel(const Shape& shape);
// "(2, 3, 8)"
std::string shape_str(const Shape& shape);

// Throws Error naming `what` and the first index holding NaN or +-inf. The public Tensor-level forwards call
// this on their inputs: a NaN would otherwise silently spread through every later layer.
void require_finite(const float* data, int64_t n, const char* what);

struct Tensor {
  Shape shape;
  std::vector<float> data;

  Tensor() = default;
  // Zero-filled tensor of the given shape.
  explicit Tensor(Shape shape);
  // Takes `data`; throws Error if its size differs from the shape's element count.
  Tensor(Shape shape, std::vector<float> data);

  int64_t numel() const { return static_cast<int64_t>(data.size()); }
  int64_t ndim() const { return static_cast<int64_t>(shape.size()); }
  // Dimension i; negative i counts from the end like PyTorch. Throws Error if out of range.
  int64_t dim(int64_t i) const;
  // Number of vectors along the last axis (numel / last dim): the "rows" a LayerNorm or Linear sees.
  int64_t rows() const;
  float* ptr() { return data.data(); }
  const float* ptr() const { return data.data(); }
};

}  // namespace blockscope
