// Grow-only workspaces for the forward passes: buffers that keep their largest size, so alternating lengths
// (a prompt, then one token at a time, then another prompt) reuse memory instead of clearing it again.
#pragma once

#include <cstddef>

#include "blockscope/tensor.hpp"

namespace blockscope::detail {

// Makes buf hold at least n floats and returns its data; never shrinks. std::vector::resize value-initialises
// every float it adds, so a shrink followed by a grow cleared the same floats again on every length change
// (in the -Os plumbing files one float at a time: ~0.14 s per layer after a 1000-token prompt in wasm).
// Here floats are cleared once, when first added (in tensor.cpp, compiled at -O3: a memset). The contents are
// whatever the last user left: callers write before they read.
float* grow_to(FloatBuffer& buf, size_t n);

}  // namespace blockscope::detail
