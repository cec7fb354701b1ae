// The memory budget: the one answer to "how many bytes may this use?". A model holds one; it bounds its
// float32 parameters plus whatever a call needs on top (forward activations and logits, a generation's KV
// cache, a training run's activations, gradients, AdamW moments and rollback copy). Loaders check a
// checkpoint's weights and file size against the portable figure before anything is built. Every allocation is
// checked *before* anything is allocated, so an oversized request fails with an Error naming what did not fit
// and by how much, and leaves the model exactly as it was. The byte counts themselves come from GPTModel /
// KVCache / GPTRunState / Trainer; bytes_str (checked.hpp) is the one byte formatter of every message.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>

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

// The whole runtime's memory, shared by everything live in it: every model, KV cache, generator, trainer and
// workspace. A budget is per object, so two models within their own budgets could still overfill a wasm32
// module's 4 GiB together (and end in a trap); require_fits therefore also checks each request against what is
// left of the runtime. `in_use` reports the bytes allocated now: the wasm module sets it to malloc's count, so it
// counts everything (native builds leave it unset: the per-object budget is the only limit there).
struct RuntimeMemory {
  // 3.5 GiB of wasm32's 4 GiB: the rest is the stack, static data, and room for the transient copies of a
  // call's inputs and results. Natively, no limit.
  static constexpr int64_t kBytes = sizeof(size_t) == 4 ? (int64_t{7} << 29) : INT64_MAX;
  static inline int64_t (*in_use)() = nullptr;
};

struct MemoryBudget {
  // What a wasm32 module gives one model: 2 GiB of its 4 GiB address space, leaving room for the input bytes,
  // tokenizer and JS-side copies. Limits that must agree between the CLI and a page (the weights a checkpoint
  // may load into: LoadOptions) are this figure on every platform, so a file loads in both or in neither.
  static constexpr int64_t kPortableBytes = int64_t{2} << 30;
  // A model's budget unless its creator gives another: kPortableBytes in wasm32 (32-bit size_t), 16 GiB natively.
  static constexpr int64_t kDefaultBytes = sizeof(size_t) == 4 ? kPortableBytes : 8 * kPortableBytes;

  int64_t max_bytes = kDefaultBytes;

  // One named part of a request: "the KV cache for 12 layers x context 1024 x 768", bytes. Bytes are held
  // as a double (exact to 2^53), so a request beyond int64 — a batch of 2^40 sequences sized by multiplying
  // per-sequence bytes — is simply over the budget.
  // `held`: bytes already allocated (a model's own parameters): they count towards the object's budget, but
  // the runtime's in_use() has them already.
  struct Part {
    template <class N>
      requires std::integral<N> || std::floating_point<N>
    Part(std::string what_, N bytes_, bool held_ = false)
        : what(std::move(what_)), bytes(static_cast<double>(bytes_)), held(held_) {}
    std::string what;
    double bytes = 0.0;
    bool held = false;
  };
  // Throws Error unless the parts together fit: "<first part> needs X (plus Y for <other parts>), over the
  // Z memory budget by W[: hint]". Sums are taken in double (an overflowing total is over any budget).
  void require_fits(std::initializer_list<Part> parts, const char* hint = nullptr) const {
    require_fits(parts.begin(), parts.end(), hint);
  }
  void require_fits(const Part* begin, const Part* end, const char* hint = nullptr) const {
    require(max_bytes >= 0, "the memory budget must be >= 0 bytes, got ", max_bytes);
    double total = 0.0;
    for (const Part* p = begin; p != end; ++p) total += p->bytes;
    if (total <= static_cast<double>(max_bytes)) {
      double fresh = 0.0;
      for (const Part* p = begin; p != end; ++p) fresh += p->held ? 0.0 : p->bytes;
      require_runtime_fits(begin, fresh, hint);
      return;
    }
    std::string msg = detail::concat(begin->what, " needs ", bytes_str(begin->bytes));
    std::string rest;
    for (const Part* p = begin + 1; p != end; ++p) {
      if (p->bytes == 0) continue;
      rest += detail::concat(rest.empty() ? "" : ", ", bytes_str(p->bytes), " for ", p->what);
    }
    if (!rest.empty()) msg += " (plus " + rest + ")";
    msg += detail::concat(", over the ", bytes_str(static_cast<double>(max_bytes)), " memory budget by ",
                          bytes_str(total - static_cast<double>(max_bytes)));
    if (hint) msg += detail::concat(": ", hint);
    throw Error(msg);
  }
  bool fits(int64_t bytes) const { return bytes >= 0 && bytes <= max_bytes; }

 private:
  // The request's new bytes (`first` naming it) on top of everything the runtime holds now.
  static void require_runtime_fits(const Part* first, double total, const char* hint) {
    if (!RuntimeMemory::in_use || total == 0.0) return;
    const auto used = static_cast<double>(RuntimeMemory::in_use());
    const auto cap = static_cast<double>(RuntimeMemory::kBytes);
    if (used + total <= cap) return;
    std::string msg = detail::concat(first->what, " needs ", bytes_str(total), " but this runtime already holds ",
                                     bytes_str(used), " of its ", bytes_str(cap),
                                     " (other models, caches, generators and trainers): dispose some first");
    if (hint) msg += detail::concat(", or ", hint);
    throw Error(msg);
  }
};

// Bytes of n float32 values, checked.
inline int64_t float_bytes(int64_t n, const char* what) { return checked_mul(n, 4, what); }

}  // namespace blockscope
