// load_model(config JSON, safetensors bytes) in both layouts (the book's and Hugging Face GPT-2's).
// Input: byte 0 picks the mode.
//   even: free form. Bytes 1-2 (little-endian) are the config's length (capped at 4 KiB), then the config
//         JSON, then the safetensors bytes.
//   odd:  a valid golden checkpoint (tests/golden/models/<byte 1 % 4>), its own config.json, with the rest of
//         the input applied as patches to the safetensors bytes: each 4-byte record is
//         (u16 offset, u8 op, u8 value): op % 4 = 0 xor, 1 set, 2 insert, 3 truncate at offset.
// A loaded model runs one forward pass and is written back (under the file's naming in F32/F16/BF16, and in
// both layouts where allowed) and read back; the weight budget
// is kept at 1 MB so that no input can make an exec expensive.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "blockscope/checkpoint.hpp"
#include "blockscope/error.hpp"
#include "fuzz_common.hpp"

namespace {
using namespace blockscope;

void load_and_use(std::string_view config, std::span<const uint8_t> weights) {
  LoadOptions opts;
  opts.max_parameter_bytes = 1'000'000;
  GPTModel model = load_model(config, weights, opts);
  // Huge but finite weights (e.g. 1e37) make the forward pass overflow to inf and NaN: it must stay defined
  // behaviour (regression: tests/fuzz/regressions/fuzz_model_load/huge-weights-nan-exp).
  const std::vector<int32_t> ids = {0};
  const Tensor logits = model.forward(ids, 1, 1);
  (void)logits;
  // Written back under the file's own naming (as training writes weights and gradients), in every storage
  // dtype (F16 refuses values beyond its range with an Error), then read back.
  const CheckpointNaming naming = checkpoint_naming(SafetensorsFile::parse(weights));
  for (const Dtype storage : {Dtype::F32, Dtype::F16, Dtype::BF16}) {
    std::vector<uint8_t> saved;
    try {
      saved = save_safetensors(model.config(), model.params(), naming, storage);
    } catch (const Error&) {
      continue;
    }
    try {
      (void)load_model(model.config(), SafetensorsFile::parse(saved), opts);
    } catch (const Error& e) {
      // Rounding to F16/BF16 may overflow to infinity, which the loader rejects; F32 must read back.
      if (storage == Dtype::F32) {
        std::fprintf(stderr, "%s\n", e.what());
        fuzz::fail("a model saved as F32 under its file's naming does not load back");
      }
    }
  }
  for (const CheckpointLayout layout : {CheckpointLayout::Book, CheckpointLayout::HuggingFace}) {
    if (layout == CheckpointLayout::HuggingFace && model.config().norm != NormPlacement::Pre) continue;
    const std::vector<uint8_t> saved = save_safetensors(model, layout);
    // What Blockscope writes, it must read back.
    (void)load_model(config_json(model, layout), saved, opts);
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 3) return 0;
  try {
    if (data[0] % 2 == 0) {
      const size_t config_len = std::min<size_t>({size_t{data[1]} | size_t{data[2]} << 8, size - 3, 4096});
      const std::string_view config(reinterpret_cast<const char*>(data + 3), config_len);
      load_and_use(config, std::span<const uint8_t>(data + 3 + config_len, size - 3 - config_len));
    } else {
      const fuzz::Golden& g = fuzz::goldens()[data[1] % 4];
      std::vector<uint8_t> bytes = g.weights;
      fuzz::apply_patches(bytes, data + 2, size - 2);
      load_and_use(g.config, bytes);
    }
  } catch (const Error&) {
  }
  return 0;
}
