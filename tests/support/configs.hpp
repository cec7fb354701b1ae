// Small GPT configs for the native tests: vocabulary, context, width, heads, layers and dropout in one call.
#pragma once

#include <cstdint>

#include "blockscope/gpt_model.hpp"

namespace blockscope::test {

inline GPTConfig small_gpt(int64_t V, int64_t ctx, int64_t C, int64_t NH, int64_t L, double drop = 0.0) {
  GPTConfig cfg;
  cfg.vocab_size = V;
  cfg.context_length = ctx;
  cfg.emb_dim = C;
  cfg.n_heads = NH;
  cfg.n_layers = L;
  cfg.drop_rate = drop;
  return cfg;
}

}  // namespace blockscope::test
