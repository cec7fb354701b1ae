// The checkpoint plan (internal to the core): every tensor of a layout's file and where its values live in
// the model's parameters. checkpoint.cpp builds it and saves through it; checkpoint_stream.cpp loads
// through it. Not in include/: a detail of how checkpoints map onto GPTModel.
#pragma once

#include <set>
#include <span>
#include <string>
#include <vector>

#include "blockscope/checkpoint.hpp"
#include "blockscope/param_arena.hpp"
#include "blockscope/safetensors.hpp"

namespace blockscope::ckpt {

enum class Op {
  Copy,       // same shape
  Transpose,  // Conv1D (in, out) in the file <-> Linear (out, in) in the arena
  QkvWeight,  // c_attn.weight (C, 3C), column block `part` <-> W_query/W_key/W_value.weight (C, C) transposed
  QkvBias,    // c_attn.bias (3C), block `part` <-> W_*.bias (C)
};

struct Dest {
  std::string param;
  Shape shape;
  Op op = Op::Copy;
  int64_t part = 0;
};

struct FileTensor {
  std::string name;
  Shape shape;
  std::vector<Dest> dests;  // empty only for zero c_attn biases of a model without qkv_bias
};

struct Plan {
  CheckpointLayout layout = CheckpointLayout::Book;
  std::vector<FileTensor> tensors;
  std::set<std::string> ignored;  // non-parameter buffers (causal masks)
  std::string tied_copy;          // optional duplicate of the embedding matrix in tied models ("" if untied)
  std::string tied_source;        // the file name of that embedding
};

// `prefix` is "transformer." or "" for GPT-2 names, ignored for the book layout.
Plan make_plan(const GPTConfig& cfg, CheckpointLayout layout, const std::string& prefix);
// The plan for loading `file` (layout detected from its tensor names; GPT-2 needs a pre-norm qkv_bias config).
Plan load_plan(const GPTConfig& cfg, const SafetensorsFile& file);

// File values (shape ft.shape) -> one parameter (shape d.shape), and back.
void to_param(const FileTensor& ft, const Dest& d, const float* file, float* param);
void from_param(const FileTensor& ft, const Dest& d, const float* param, float* file);
std::span<const float> param_values(const ParamArena& arena, const std::string& name);

// Checks before anything is allocated: every planned tensor present with its shape and a float dtype; no
// tensor the plan does not know (the tied copy must have the embedding's shape); the plan names every
// parameter of `arena` exactly once.
void check_present(const SafetensorsFile& file, const Plan& plan);
void check_no_unexpected(const SafetensorsFile& file, const Plan& plan, const GPTConfig& cfg);
void check_plan_covers(const Plan& plan, const ParamArena& arena);

}  // namespace blockscope::ckpt
