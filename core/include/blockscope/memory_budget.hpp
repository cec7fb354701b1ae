// The memory budget: one limit on the bytes a model may hold at once — its float32 parameters plus whatever a
// call needs on top (forward activations and logits, a generation's KV cache, a training run's activations,
// gradients and AdamW moments). Every such allocation is checked against it *before* anything is allocated,
// so an oversized request fails with an Error naming what did not fit and by how much, and leaves the model
// exactly as it was. The byte counts themselves come from GPTModel / KVCache / GPTRunState (gpt_model.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>

#include "blockscope/checked.hpp"
#include "blockscope/error.hpp"

namespace blockscope {

// Upper bounds on model dimensions, enforced by every config's validate(). They are far above any model
// Blockscope is meant to run (GPT-2 XL: 48 layers, emb_dim 1600, 25 heads, context 1024, vocab 50257) and
// keep every size product of a valid config well inside int64: the largest parameter count a valid config
// can describe is about 2^50, so only the memory budget decides what is actually built.
struct SizeLimits {
  static constexpr int64_t kMaxLayers = 4096;
  static constexpr int64_t kMaxEmbDim = int64_t{1} << 16;
  static constexpr int64_t kMaxContext = int64_t{1} << 20;
  static constexpr int64_t kMaxFfnHidden = int64_t{1} << 20;
  static constexpr int64_t kMaxVocab = INT32_MAX;  // token ids cross the API as int32
};

struct MemoryBudget {
  // wasm32 (32-bit size_t): 2 GiB of the module's 4 GiB address space, leaving room for the input bytes,
  // tokenizer and JS-side copies. Native: 16 GiB.
  static constexpr int64_t kDefaultBytes = sizeof(size_t) == 4 ? int64_t{2} << 30 : int64_t{16} << 30;

  int64_t max_bytes = kDefaultBytes;

  // One named part of a request: "the KV cache for 12 layers x context 1024 x 768", bytes.
  struct Part {
    std::string what;
    int64_t bytes = 0;
  };
  // Throws Error unless the parts together fit: "<first part> needs X (plus Y for <other parts>), over the
  // Z budget by W". Sums are checked (an overflowing total is over any budget).
  void require_fits(std::initializer_list<Part> parts) const {
    require(max_bytes >= 0, "the memory budget must be >= 0 bytes, got ", max_bytes);
    double total = 0.0;
    for (const Part& p : parts) total += static_cast<double>(p.bytes);
    if (total <= static_cast<double>(max_bytes)) return;
    const Part& first = *parts.begin();
    std::string msg = detail::concat(first.what, " needs ", bytes_str(static_cast<double>(first.bytes)));
    std::string rest;
    for (auto it = parts.begin() + 1; it != parts.end(); ++it) {
      if (it->bytes == 0) continue;
      rest += detail::concat(rest.empty() ? "" : ", ", bytes_str(static_cast<double>(it->bytes)), " for ",
                             it->what);
    }
    if (!rest.empty()) msg += " (plus " + rest + ")";
    msg += detail::concat(", over the ", bytes_str(static_cast<double>(max_bytes)), " memory budget by ",
                          bytes_str(total - static_cast<double>(max_bytes)));
    throw Error(msg);
  }
  bool fits(int64_t bytes) const { return bytes >= 0 && bytes <= max_bytes; }
};

// Bytes of n float32 values, checked.
inline int64_t float_bytes(int64_t n, const char* what) { return checked_mul(n, 4, what); }

}  // namespace blockscope
