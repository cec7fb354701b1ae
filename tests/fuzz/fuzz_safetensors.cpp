// SafetensorsFile::parse on arbitrary bytes; when it accepts them, every entry is read back (raw bytes and,
// for float dtypes, a float32 conversion), which must not read outside the buffer. The same bytes also go to
// AdamW::load_state (optimizer state files, read when training resumes) for a tiny model's parameters; a
// state it accepts must then support an update. Seed: tests/fuzz/corpus/fuzz_safetensors/adamw_state.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "blockscope/error.hpp"
#include "blockscope/gpt_model.hpp"
#include "blockscope/optimizer.hpp"
#include "blockscope/safetensors.hpp"
#include "fuzz_common.hpp"

namespace {
using namespace blockscope;

// The parameters of the smallest GPT (vocab 2, one position, emb_dim 1, one layer): 20 tensors.
const ParamArena& tiny_params() {
  static const GPTModel model = [] {
    GPTConfig c;
    c.vocab_size = 2, c.context_length = 1, c.emb_dim = 1, c.n_heads = 1, c.n_layers = 1;
    return GPTModel(c, 1);
  }();
  return model.params();
}

void load_optimizer_state(std::span<const uint8_t> bytes) {
  AdamW opt(tiny_params(), AdamWConfig{});
  opt.load_state(bytes);
  ParamArena params = ParamArena::zeros_like(tiny_params()), grads = ParamArena::zeros_like(tiny_params());
  opt.step(params, grads, 1e-3);
  (void)opt.save_state();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    load_optimizer_state(std::span<const uint8_t>(data, size));
  } catch (const Error&) {
  }
  try {
    const SafetensorsFile file = SafetensorsFile::parse(std::span<const uint8_t>(data, size));
    for (const SafetensorsEntry& e : file.entries()) {
      if (file.find(e.name) != &e) fuzz::fail("find() does not return the entry");
      const auto raw = file.raw(e);
      if (static_cast<int64_t>(raw.size()) != e.numel * dtype_size(e.dtype)) fuzz::fail("raw size != numel * dtype size");
      if (raw.size() > size) fuzz::fail("an entry is larger than the file");
      if (dtype_is_float(e.dtype)) {
        std::vector<float> out(static_cast<size_t>(e.numel));
        file.read_float32(e, out);
        (void)file.tensor(e.name);
      }
    }
    (void)file.metadata().size();
  } catch (const Error&) {
  }
  return 0;
}
