// Numbers as text without printf/strtod (number_text.hpp).
#include "number_text.hpp"

#include <cmath>

namespace blockscope::detail {

std::string real_text(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d < 0 ? "-inf" : "inf";
  std::string s = shortest_text(d);  // integral values end in ".0"
  if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) s.resize(s.size() - 2);
  return s;
}

double short_float(float f) {
  // 10^0 .. 10^22: every power of ten a double holds exactly.
  static constexpr double kPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                      1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  if (!std::isfinite(f) || f == 0.0f) return f;
  const int exponent = static_cast<int>(std::floor(std::log10(std::fabs(static_cast<double>(f)))));
  for (int digits = 6; digits <= 9; ++digits) {
    // f * 10^k rounded to an integer m holds the leading `digits` digits; m / 10^k (or m * 10^-k) is then the
    // double nearest the decimal m·10^-k, with one rounding of exact operands, as strtod would give it.
    const int k = digits - 1 - exponent;
    if (k > 22 || k < -22) return f;
    const double m = std::nearbyint(k >= 0 ? static_cast<double>(f) * kPow10[k] : static_cast<double>(f) / kPow10[-k]);
    const double decimal = k >= 0 ? m / kPow10[k] : m * kPow10[-k];
    if (static_cast<float>(decimal) == f) return decimal;
  }
  return f;
}

}  // namespace blockscope::detail
