// Every JSON config the core reads, from arbitrary text. The first byte picks the reader; the rest is the
// JSON text (text that is not JSON at all is skipped, except by read_config, which parses it itself).
// An accepted config must survive to_json -> from_json, and the second to_json must equal the first.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>

#include "blockscope/checkpoint.hpp"
#include "blockscope/error.hpp"
#include "blockscope/feed_forward.hpp"
#include "blockscope/generation.hpp"
#include "blockscope/gpt_model.hpp"
#include "blockscope/multi_head_attention.hpp"
#include "blockscope/residual_mlp.hpp"
#include "blockscope/trainer.hpp"
#include "blockscope/transformer_block.hpp"
#include "fuzz_common.hpp"

namespace {
using nlohmann::json;

// from_json(to_json(c)) must succeed and serialize to the same JSON.
template <typename Config>
void round_trip(const Config& c) {
  const json once = c.to_json();
  const json twice = Config::from_json(once).to_json();
  if (once != twice) fuzz::fail("to_json -> from_json -> to_json changed the config");
}

template <typename Config>
void check(const json& j) {
  round_trip(Config::from_json(j));
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace blockscope;
  if (size < 1) return 0;
  const uint8_t which = data[0] % 8;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    if (which == 0) {  // config.json, book or Hugging Face keys; the core parses the text itself
      const GPTConfig c = read_config(text);
      round_trip(c);
      return 0;
    }
    const json j = json::parse(text, /*callback=*/nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) return 0;
    switch (which) {
      case 1: check<GPTConfig>(j); break;
      case 2: check<BlockConfig>(j); break;
      case 3: (void)AttentionConfig::from_json(j); break;  // no to_json
      case 4: (void)FeedForwardConfig::from_json(j); break;
      case 5: (void)GenerateOptions::from_json(j); break;
      case 6: check<TrainConfig>(j); break;
      case 7: (void)ResidualMLPConfig::from_json(j); break;
    }
  } catch (const Error&) {
  }
  return 0;
}
