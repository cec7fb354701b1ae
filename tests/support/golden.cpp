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

void print_deviation_report() {
  if (deviations().empty()) return;
  std::printf("Largest |actual - PyTorch| per component:\n");
  for (const auto& [name, d] : deviations()) std::printf("  %-28s %.3g\n", name.c_str(), d);
}

}  // namespace blockscope::golden
