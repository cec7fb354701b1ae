// Blockscope's one exception type and the checks that throw it.
// Bad input must never abort (that would kill a web page): every check throws blockscope::Error
// with a message naming the offending values; the wasm layer turns it into a JS Error.
#pragma once

#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>

namespace blockscope {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace detail {
// One piece of an error message: text, an integer, a floating-point number or a bool, held by value or by
// view (a view stays valid for the full expression that builds the message). The message is built out of line
// (error.cpp), so a check costs its call site a few stores and one call, not an inlined string concatenation:
// ~250 checks made that a sizeable part of the wasm download. No <sstream>: iostreams and locales would add
// ~100 KB to the wasm module.
class MessagePart {
 public:
  enum class Kind : unsigned char { text, signed_int, unsigned_int, real, single, boolean, character };
  MessagePart(std::string_view v) : kind_(Kind::text), text_(v) {}          // NOLINT: implicit by design
  MessagePart(const char* v) : kind_(Kind::text), text_(v) {}               // NOLINT
  MessagePart(const std::string& v) : kind_(Kind::text), text_(v) {}        // NOLINT
  MessagePart(char v) : kind_(Kind::character), u_(static_cast<unsigned char>(v)) {}  // NOLINT
  MessagePart(bool v) : kind_(Kind::boolean), u_(v) {}                      // NOLINT
  template <std::signed_integral T>
    requires(!std::same_as<T, char> && !std::same_as<T, bool>)
  MessagePart(T v) : kind_(Kind::signed_int), i_(v) {}  // NOLINT
  template <std::unsigned_integral T>
    requires(!std::same_as<T, char> && !std::same_as<T, bool>)
  MessagePart(T v) : kind_(Kind::unsigned_int), u_(v) {}  // NOLINT
  MessagePart(float v) : kind_(Kind::single), d_(v) {}  // NOLINT
  template <std::floating_point T>
  MessagePart(T v) : kind_(Kind::real), d_(static_cast<double>(v)) {}  // NOLINT

  // Appends this part: integers in decimal, floating-point numbers as the shortest decimal that reads back as
  // the same value (a float as a float: 1e-05f is "1e-05"), bools as true/false.
  void append_to(std::string& s) const;

 private:
  Kind kind_;
  union {
    std::string_view text_;
    int64_t i_;
    uint64_t u_;
    double d_;
  };
};

// The parts joined into one string.
std::string concat_parts(std::initializer_list<MessagePart> parts);
// Throws Error with the parts joined as its message.
[[noreturn]] void throw_error(std::initializer_list<MessagePart> parts);

template <typename... Args>
std::string concat(const Args&... args) {
  return concat_parts({MessagePart(args)...});
}
}  // namespace detail

// Throws Error with the concatenated message parts unless `condition` holds.
template <typename... Args>
inline void require(bool condition, const Args&... message_parts) {
  if (!condition) [[unlikely]] detail::throw_error({detail::MessagePart(message_parts)...});
}

}  // namespace blockscope
