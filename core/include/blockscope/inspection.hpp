// What a forward pass records for the widgets when inspection is on: LayerNorm statistics, FFN hidden
// values before and after GELU, attention weights and residual-stream norms, per layer and per token.
// Everything is captured during the one forward pass that produced the logits; nothing is recomputed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace blockscope {

// Mean and biased variance over the last axis of one tensor, per token: mean, var (B, T).
struct RowStats {
  std::vector<float> mean, var;
};

// A LayerNorm's input and output statistics.
struct LayerNormInspection {
  RowStats in, out;
};

// Statistics of the tensor after one operation of a block, per token: mean, biased variance and L2 norm over
// the channels, each (B, T). `id` names the step stably ("input", "norm1", "att", "drop1", "add1", "norm2", "ff",
// "drop2", "add2": the order depends on the placement); `op` as the book's TransformerBlock.forward writes it.
struct StepStats {
  std::string id;
  std::string op;  // "x (input)", "norm1", "att", "drop_shortcut", "x + shortcut" (or "no shortcut"), ...
  std::vector<float> mean, var, norm;
};

struct BlockInspection {
  std::vector<StepStats> steps;        // the block's dataflow in execution order (depends on norm placement)
  LayerNormInspection norm1, norm2;
  std::vector<float> ffn_hidden_pre;   // (B, T, H) after the first Linear
  std::vector<float> ffn_hidden_post;  // (B, T, H) after the activation
  std::vector<float> attn_weights;     // (B, NH, T, T) softmax weights
  std::vector<float> residual_norm;    // (B, T) L2 norm of the block's output (the residual stream)
};

struct ForwardInspection {
  int64_t B = 0, T = 0, C = 0, H = 0, NH = 0;
  std::vector<BlockInspection> layers;  // one per transformer block
  LayerNormInspection final_norm;
  bool empty() const { return layers.empty(); }
};

}  // namespace blockscope
