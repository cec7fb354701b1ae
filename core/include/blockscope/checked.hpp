// Checked size arithmetic. Every tensor size, parameter count and buffer length in Blockscope is an int64
// computed from user-supplied dimensions; these helpers make an overflow, or a size that does not fit the
// target's size_t (32 bits in wasm), throw Error naming the quantity instead of wrapping. Sizes that feed an
// allocation always pass through to_size().
#pragma once

#include <cstddef>
#include <cstdint>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <string>

#include "blockscope/error.hpp"

namespace blockscope {

// a * b; throws Error "<what> overflows int64 (a x b)" on overflow.
inline int64_t checked_mul(int64_t a, int64_t b, const char* what) {
  int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) throw Error(detail::concat(what, " overflows int64 (", a, " x ", b, ")"));
  return r;
}

// a + b; throws Error "<what> overflows int64 (a + b)" on overflow.
inline int64_t checked_add(int64_t a, int64_t b, const char* what) {
  int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) throw Error(detail::concat(what, " overflows int64 (", a, " + ", b, ")"));
  return r;
}

// The product of all factors, checked at every step.
inline int64_t checked_product(const char* what, std::initializer_list<int64_t> factors) {
  int64_t r = 1;
  for (const int64_t f : factors) r = checked_mul(r, f, what);
  return r;
}

// v as the unsigned type U; throws Error when v < 0 or v > U's maximum.
template <typename U>
U to_unsigned(int64_t v, const char* what) {
  static_assert(std::numeric_limits<U>::is_integer && !std::numeric_limits<U>::is_signed);
  if (v < 0) throw Error(detail::concat(what, " must be >= 0, got ", v));
  if (static_cast<uint64_t>(v) > std::numeric_limits<U>::max())
    throw Error(detail::concat(what, " (", v, ") does not fit a ", sizeof(U) * 8, "-bit size on this platform"));
  return static_cast<U>(v);
}

// v as size_t (an element count for resize/assign/allocate). On wasm32 a count above 2^32 - 1 is refused,
// and so is one whose float32 bytes would not fit size_t.
inline size_t to_size(int64_t v, const char* what) {
  const size_t n = to_unsigned<size_t>(v, what);
  if (n > std::numeric_limits<size_t>::max() / sizeof(float))
    throw Error(detail::concat(what, " (", v, " values) needs more bytes than this platform can address"));
  return n;
}

// "976.6 GiB", "4.0 MiB", "512 bytes": binary units with one decimal.
inline std::string bytes_str(double bytes) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int u = 0;
  while (bytes >= 1024.0 && u < 6) {
    bytes /= 1024.0;
    ++u;
  }
  // Integer arithmetic rather than printf, whose floating-point formatting would come back into the wasm module.
  if (u == 0) return std::to_string(static_cast<long long>(std::llround(bytes))) + " bytes";
  const long long tenths = std::llround(bytes * 10.0);
  return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10) + " " + units[u];
}

}  // namespace blockscope
