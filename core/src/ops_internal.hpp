// Internal header shared by the forward (ops.cpp) and backward (ops_backward.cpp) kernels: the GELU constants and
// the per-head scratch attention uses.
#pragma once

#include <cstddef>
#include <cstdint>

namespace blockscope::detail {


inline constexpr float kSqrt2OverPi = 0.7978845608028654f;  // sqrt(2 / pi)
inline constexpr float kGeluCoeff = 0.044715f;
inline constexpr float kInvSqrt2 = 0.7071067811865476f;
inline constexpr float kInvSqrt2Pi = 0.3989422804014327f;  // 1 / sqrt(2 pi)

// Query rows per block of causal attention: each block is multiplied only with the keys it can see.
inline constexpr int64_t kAttentionRowBlock = 32;

// Below this many query rows (decoding), attention without dropout in builds with row kernels goes row by row over keys and values read
// in place (kernels/f32_attention.cpp): copying each head's K and V and packing them costs more than the
// products. From 8 rows on, the packed GEMM kernels reuse each key and value row across queries.
inline constexpr int64_t kAttentionFewRows = 8;

// At least n floats of scratch, reused across calls (one buffer per thread; the wasm build has no threads).
float* head_scratch(size_t n);
// One head's rows of a (rows, C) buffer copied to contiguous (rows, hs): dst[r][j] = src[r * stride + j].
void gather_head(float* dst, const float* src, int64_t rows, int64_t hs, int64_t stride);

}  // namespace blockscope::detail
