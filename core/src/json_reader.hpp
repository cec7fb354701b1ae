// The strict JSON object reader behind every config the core parses (internal header, not in include/):
// unknown keys are rejected by name, and every value is type-checked (an integer key rejects 2.5, 1e300 and
// 2^64; a flag rejects "yes"), with errors that quote at most 60 characters of the offending value.
#pragma once

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>

#include "blockscope/error.hpp"

namespace blockscope::detail {
using json = nlohmann::json;

// A JSON object read key by key; `what` names the config in errors ("GPT config", "block config", ...).
class Reader {
 public:
  Reader(const json& j, const char* what, std::initializer_list<const char*> known) : j_(j), what_(what) {
    require(j.is_object(), "a ", what, " must be a JSON object, got ", j.type_name());
    std::string list;
    for (const char* k : known) list += (list.empty() ? "" : ", ") + std::string(k);
    for (const auto& [key, value] : j.items()) {
      bool ok = false;
      for (const char* k : known) ok |= key == k;
      require(ok, "unknown config key '", key, "' in the ", what, " (expected ", list, ")");
    }
  }
  bool has(const char* key) const { return j_.contains(key) && !j_[key].is_null(); }
  int64_t integer(const char* key) const {
    require(has(key), what_, " is missing '", key, "'");
    const json& v = j_[key];
    require(v.is_number_integer() && (!v.is_number_unsigned() || v.get<uint64_t>() <= INT64_MAX), what_, " key '",
            key, "' must be an integer, got ", short_dump(v));
    return v.get<int64_t>();
  }
  int64_t integer(const char* key, int64_t fallback) const { return has(key) ? integer(key) : fallback; }
  double number(const char* key, double fallback) const {
    if (!has(key)) return fallback;
    const json& v = j_[key];
    require(v.is_number() && std::isfinite(v.get<double>()), what_, " key '", key, "' must be a finite number, got ",
            short_dump(v));
    return v.get<double>();
  }
  bool flag(const char* key, bool fallback) const {
    if (!has(key)) return fallback;
    require(j_[key].is_boolean(), what_, " key '", key, "' must be true or false, got ", short_dump(j_[key]));
    return j_[key].get<bool>();
  }
  std::string text(const char* key, const char* fallback) const {
    if (!has(key)) return fallback;
    require(j_[key].is_string(), what_, " key '", key, "' must be a string, got ", short_dump(j_[key]));
    return j_[key].get<std::string>();
  }

  // At most 60 characters of a value, so a hostile multi-megabyte value cannot flood an error message.
  static std::string short_dump(const json& v) {
    if (v.is_structured()) return v.is_array() ? "an array" : "an object";
    std::string s = v.dump();
    return s.size() > 60 ? s.substr(0, 57) + "..." : s;
  }

 private:
  const json& j_;
  const char* what_;
};

}  // namespace blockscope::detail
