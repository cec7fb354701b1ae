// Test support: reads the PyTorch golden files in tests/golden/ (written by tests/reference/make_goldens.py)
// and compares tensors with the mixed tolerance |a - e| <= atol + rtol * |e|, as XNNPACK's testers do.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "blockscope/param_arena.hpp"
#include "blockscope/tensor.hpp"

namespace blockscope::golden {

// Per-op tolerance from the issue: |a - e| <= 1e-5 + 1e-5 |e|; tiny-GPT logits: <= 1e-4.
inline constexpr float kAtol = 1e-5f;
inline constexpr float kRtol = 1e-5f;
inline constexpr float kLogitsAtol = 1e-4f;

// One case of a golden file: {"name", "config", "params", "inputs", "outputs"}.
struct Case {
  std::string name;
  nlohmann::json json;
  const nlohmann::json& config() const { return json.at("config"); }
  Tensor param(const std::string& name) const;
  Tensor input(const std::string& name) const;
  Tensor output(const std::string& name) const;
  std::vector<int32_t> input_ids(const std::string& name, Shape* shape) const;
  bool has_output(const std::string& name) const { return json.at("outputs").contains(name); }
  // Copies every "params" entry into `arena`, renaming with `rename` (identity if empty); requires that
  // the arena then has no parameter left unassigned.
  void load_params(ParamArena& arena, const std::map<std::string, std::string>& rename = {}) const;
};

// All cases of tests/golden/<file>; the file is parsed once per process.
const std::vector<Case>& cases(const std::string& file);
const Case& find_case(const std::string& file, const std::string& name);

Tensor to_tensor(const nlohmann::json& t);

// Catch2 CHECKs that `actual` matches `expected` elementwise within atol + rtol |e| (NaN never matches),
// naming the worst index on failure, and records the largest |a - e| under `component`.
void check_close(const std::string& component, std::span<const float> actual, const Tensor& expected,
                 float atol = kAtol, float rtol = kRtol);
void check_close(const std::string& component, const Tensor& actual, const Tensor& expected, float atol = kAtol,
                 float rtol = kRtol);

void print_deviation_report();

}  // namespace blockscope::golden
