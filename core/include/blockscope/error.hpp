// Blockscope's one exception type and the checks that throw it.
// Bad input must never abort (that would kill a web page): every check throws blockscope::Error
// with a message naming the offending values; the wasm layer turns it into a JS Error.
#pragma once

#include <concepts>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace blockscope {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace detail {
// Message building without <sstream>: iostreams and locales would add ~100 KB to the wasm module.
inline void append(std::string& s, std::string_view v) { s += v; }
inline void append(std::string& s, const char* v) { s += v; }
inline void append(std::string& s, char v) { s += v; }
inline void append(std::string& s, bool v) { s += v ? "true" : "false"; }
template <std::integral T>
void append(std::string& s, T v) {
  s += std::to_string(v);
}
template <std::floating_point T>
void append(std::string& s, T v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.7g", static_cast<double>(v));
  s += buf;
}

template <typename... Args>
std::string concat(Args&&... args) {
  std::string s;
  (append(s, std::forward<Args>(args)), ...);
  return s;
}
}  // namespace detail

// Throws Error with the concatenated message parts unless `condition` holds.
template <typename... Args>
void require(bool condition, Args&&... message_parts) {
  if (!condition) throw Error(detail::concat(std::forward<Args>(message_parts)...));
}

}  // namespace blockscope
