// Internal header shared by the forward (ops.cpp) and backward (ops_backward.cpp) kernels: Eigen maps over
// row-major float32 buffers (no copies) and the GELU constants both directions use.
#pragma once

#include <Eigen/Core>

namespace blockscope::detail {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using MatMap = Eigen::Map<RowMatrix>;
using ConstMatMap = Eigen::Map<const RowMatrix>;
// One head's slice of a (rows, C) buffer: rows of hs values, C apart.
using StridedMap = Eigen::Map<RowMatrix, 0, Eigen::OuterStride<>>;
using ConstStridedMap = Eigen::Map<const RowMatrix, 0, Eigen::OuterStride<>>;

inline constexpr float kSqrt2OverPi = 0.7978845608028654f;  // sqrt(2 / pi)
inline constexpr float kGeluCoeff = 0.044715f;
inline constexpr float kInvSqrt2 = 0.7071067811865476f;
inline constexpr float kInvSqrt2Pi = 0.3989422804014327f;  // 1 / sqrt(2 pi)

}  // namespace blockscope::detail
