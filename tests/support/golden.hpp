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

// |a - e| <= rel * max|e| for every element: a tolerance relative to the tensor's scale, for gradients that
// sum many terms (the GPT's), where an elementwise relative tolerance would be meaningless near zero.
void check_close_scaled(const std::string& component, std::span<const float> actual, const Tensor& expected,
                        float rel);

// Every output "grad.<name>" of `c` against the gradient arena's tensor <prefix><name> (same layout as the
// parameters). With rel > 0 the tolerance is check_close_scaled's, else atol + rtol |e|. Returns how many
// gradients were compared.
int check_grads(const std::string& component, const Case& c, const ParamArena& grads, float rel = 0.0f,
                const std::string& prefix = "");

// A golden 0/1 keep mask as the dropout scale the core uses: 0 or 1/(1-p), as nn.Dropout.
std::vector<float> dropout_scale(const Case& c, const std::string& input, double p);

void print_deviation_report();

}  // namespace blockscope::golden
