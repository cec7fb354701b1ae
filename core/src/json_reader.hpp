// JSON input for the whole core (internal header, not in include/): parse_json, the one parser every JSON
// document goes through (nesting depth bounded, duplicate keys rejected), and the strict object reader behind
// every config: unknown keys are rejected by name, and every value is type-checked (an integer key rejects
// 2.5 and says "too large" for 2^64 or 1e300; a flag rejects "yes"), with errors that quote at most 60
// characters of the offending value and never serialize a whole structured value.
#pragma once

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "blockscope/error.hpp"

namespace blockscope::detail {
using json = nlohmann::json;

// Containers may nest this deep in any JSON document the core reads (configs need 2 levels, vocabularies 1).
inline constexpr int kMaxJsonDepth = 64;

struct JsonParseOptions {
  int max_depth = kMaxJsonDepth;         // open objects/arrays at once; the root container is depth 1
  const char* depth_limit = "64 levels"; // how errors describe max_depth ("a header can")
  const char* top_key_noun = nullptr;    // names duplicate top-level keys, e.g. "tensor name"
};

// Parses `text` as one JSON document. Throws Error "<what> is not valid JSON: ...", "<what> nests deeper
// than 64 levels (depth 65)" (before building anything deeper) or "<what> has the key 'k' twice" (in any
// object: JSON parsers disagree on which duplicate wins, so none does). Defined in config_json.cpp.
json parse_json(std::string_view text, const char* what, const JsonParseOptions& options = {});

// At most 60 characters of `s`, with "..." when cut: keys and strings quoted in errors stay short.
std::string excerpt(std::string_view s);
// A value for an error message, at most 60 characters: scalars and flat arrays of scalars as JSON text,
// other arrays as "an array", objects as "an object".
std::string short_dump(const json& v);
// An integer-looking number that does not fit int64 (2^64 - 1, 1e300, -1e19): says "too large" rather
// than letting it wrap or read as a float.
bool integer_out_of_range(const json& v);

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
      require(ok, "unknown config key '", excerpt(key), "' in the ", what, " (expected ", list, ")");
    }
  }
  bool has(const char* key) const { return j_.contains(key) && !j_[key].is_null(); }
  int64_t integer(const char* key) const {
    require(has(key), what_, " is missing '", key, "'");
    const json& v = j_[key];
    require(!integer_out_of_range(v), what_, " key '", key, "' must be an integer, got ", short_dump(v),
            ", which is too large (at most 9223372036854775807)");
    require(v.is_number_integer(), what_, " key '", key, "' must be an integer, got ", short_dump(v));
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

 private:
  const json& j_;
  const char* what_;
};

}  // namespace blockscope::detail
