// Golden-file loading and tolerance checks for the native tests.
#include "support/golden.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <set>

namespace blockscope::golden {

namespace {
std::map<std::string, double>& deviations() {
  static std::map<std::string, double> d;
  return d;
}
}  // namespace

Tensor to_tensor(const nlohmann::json& t) {
  Shape shape = t.at("shape").get<Shape>();
  std::vector<float> data;
  data.reserve(t.at("data").size());
  for (const auto& v : t.at("data")) data.push_back(v.get<float>());
  return Tensor(std::move(shape), std::move(data));
}

Tensor Case::param(const std::string& n) const { return to_tensor(json.at("params").at(n)); }
Tensor Case::input(const std::string& n) const { return to_tensor(json.at("inputs").at(n)); }
Tensor Case::output(const std::string& n) const { return to_tensor(json.at("outputs").at(n)); }

std::vector<int32_t> Case::input_ids(const std::string& n, Shape* shape) const {
  const auto& t = json.at("inputs").at(n);
  if (shape) *shape = t.at("shape").get<Shape>();
  return t.at("data").get<std::vector<int32_t>>();
}

void Case::load_params(ParamArena& arena, const std::map<std::string, std::string>& rename) const {
  std::set<std::string> assigned;
  for (const auto& [name, t] : json.at("params").items()) {
    const auto it = rename.find(name);
    const std::string target = it == rename.end() ? name : it->second;
    const Tensor value = to_tensor(t);
    arena.assign(target, value.shape, value.data);
    assigned.insert(target);
  }
  for (const auto& p : arena.params()) {
    INFO("parameter " << p.name << " is missing from golden case " << this->name);
    REQUIRE(assigned.count(p.name) == 1);
  }
}

const std::vector<Case>& cases(const std::string& file) {
  static std::map<std::string, std::vector<Case>> cache;
  auto it = cache.find(file);
  if (it != cache.end()) return it->second;
  const std::string path = std::string(BLOCKSCOPE_GOLDEN_DIR) + "/" + file;
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open golden file " + path);
  const auto doc = nlohmann::json::parse(in);
  std::vector<Case> out;
  for (const auto& c : doc.at("cases")) out.push_back({c.at("name").get<std::string>(), c});
  return cache.emplace(file, std::move(out)).first->second;
}

const Case& find_case(const std::string& file, const std::string& name) {
  for (const auto& c : cases(file))
    if (c.name == name) return c;
  throw std::runtime_error("no case '" + name + "' in golden file " + file);
}

void check_close(const std::string& component, std::span<const float> actual, const Tensor& expected, float atol,
                 float rtol) {
  REQUIRE(static_cast<int64_t>(actual.size()) == expected.numel());
  double worst_excess = -1.0, max_abs = 0.0;
  size_t worst = 0;
  size_t failures = 0;
  for (size_t i = 0; i < actual.size(); ++i) {
    const double a = actual[i], e = expected.data[i];
    const double diff = std::fabs(a - e);
    const double allowed = atol + rtol * std::fabs(e);
    const bool ok = diff <= allowed;  // false for NaN
    if (!ok) ++failures;
    if (std::isnan(diff) || diff > max_abs) max_abs = std::isnan(diff) ? INFINITY : diff;
    const double excess = std::isnan(diff) ? INFINITY : diff - allowed;
    if (excess > worst_excess) {
      worst_excess = excess;
      worst = i;
    }
  }
  auto& d = deviations()[component];
  d = std::max(d, max_abs);
  INFO(component << ": " << failures << " of " << actual.size() << " elements outside atol " << atol << " + rtol "
                 << rtol << "; worst at flat index " << worst << ": got " << actual[worst] << ", expected "
                 << expected.data[worst] << "; max |a-e| = " << max_abs);
  CHECK(failures == 0);
}

void check_close(const std::string& component, const Tensor& actual, const Tensor& expected, float atol, float rtol) {
  REQUIRE(actual.shape == expected.shape);
  check_close(component, std::span<const float>(actual.data), expected, atol, rtol);
}

void check_close_scaled(const std::string& component, std::span<const float> actual, const Tensor& expected,
                        float rel) {
  float scale = 0.0f;
  for (const float e : expected.data) scale = std::max(scale, std::fabs(e));
  check_close(component, actual, expected, rel * scale, 0.0f);
}

int check_grads(const std::string& component, const Case& c, const ParamArena& grads, float rel,
                const std::string& prefix) {
  // The key bias adds q . b_k to every score of a query's row, which softmax ignores: its exact gradient is 0
  // and both PyTorch's and ours are rounding noise (~1e-9). Scaled to that noise, a relative tolerance means
  // nothing, so key biases are checked against 0 with rel times the case's largest gradient instead.
  float global = 0.0f;
  for (const auto& [key, value] : c.json.at("outputs").items())
    if (key.rfind("grad.", 0) == 0)
      for (const auto& v : value.at("data")) global = std::max(global, std::fabs(v.get<float>()));
  int n = 0;
  for (const auto& [key, value] : c.json.at("outputs").items()) {
    if (key.rfind("grad.", 0) != 0) continue;
    const std::string name = prefix + key.substr(5);
    INFO("gradient of " << name);
    REQUIRE(grads.find(name) != nullptr);
    const Tensor expected = to_tensor(value);
    REQUIRE(grads.find(name)->shape == expected.shape);
    const bool key_bias = name.size() >= 10 && name.compare(name.size() - 10, 10, "W_key.bias") == 0;
    if (rel > 0.0f && key_bias)
      check_close(component + " (key bias, exactly 0)", grads.get(name), Tensor(expected.shape), rel * global, 0.0f);
    else if (rel > 0.0f)
      check_close_scaled(component, grads.get(name), expected, rel);
    else
      check_close(component, grads.get(name), expected);
    ++n;
  }
  return n;
}

std::vector<float> dropout_scale(const Case& c, const std::string& input, double p) {
  const Tensor keep = c.input(input);
  const float scale = 1.0f / static_cast<float>(1.0 - p);
  std::vector<float> out(keep.data.size());
  for (size_t i = 0; i < out.size(); ++i) out[i] = keep.data[i] != 0.0f ? scale : 0.0f;
  return out;
}

void print_deviation_report() {
  if (deviations().empty()) return;
  std::printf("Largest |actual - PyTorch| per component:\n");
  for (const auto& [name, d] : deviations()) std::printf("  %-28s %.3g\n", name.c_str(), d);
}

}  // namespace blockscope::golden
