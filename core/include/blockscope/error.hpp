// Blockscope's one exception type and the checks that throw it.
// Bad input must never abort (that would kill a web page): every check throws blockscope::Error
// with a message naming the offending values; the wasm layer turns it into a JS Error.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

namespace blockscope {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace detail {
template <typename... Args>
std::string concat(Args&&... args) {
  std::ostringstream os;
  (os << ... << std::forward<Args>(args));
  return os.str();
}
}  // namespace detail

// Throws Error with the concatenated message parts unless `condition` holds.
template <typename... Args>
void require(bool condition, Args&&... message_parts) {
  if (!condition) throw Error(detail::concat(std::forward<Args>(message_parts)...));
}

}  // namespace blockscope
