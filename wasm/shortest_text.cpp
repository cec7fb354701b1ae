// shortest_text for the WebAssembly modules (core/src/number_text.hpp): the digits are the JavaScript engine's
// shortest round trip (Number.prototype.toExponential without a precision), laid out as nlohmann's json::dump lays
// out its Grisu2 digits, so error messages read as the native build's. It replaces core/src/shortest_text.cpp, as
// strtod.cpp replaces musl's strtod: that file brings nlohmann's serializer and, through its string escapes, printf,
// ~11 KB gzip that the light module (wasm/CMakeLists.txt) would otherwise carry for error messages alone.
#include <emscripten/emscripten.h>

#include <string>

#include "number_text.hpp"

// Writes the text of the finite double d to out (at least 32 bytes) and returns its length. json::dump's layout
// (nlohmann's format_buffer with min_exp -4, max_exp 15): with the digits d1…dk and the decimal point after n of
// them, "digits[000].0" when k <= n <= 15, "dig.its" when 0 < n < k, "0.[000]digits" when -4 < n <= 0, else
// "d[.igits]e±XX" (at least two exponent digits); zero is "0.0" or "-0.0".
EM_JS(int, blockscope_js_shortest_text, (double d, char* out), {
  const sign = d < 0 || Object.is(d, -0) ? "-" : "";
  const [mantissa, exponent] = Math.abs(d).toExponential().split("e");
  const digits = mantissa.replace(".", "");
  const k = digits.length;
  const n = Number(exponent) + 1;
  let text;
  if (k <= n && n <= 15) text = digits + "0".repeat(n - k) + ".0";
  else if (0 < n && n <= 15) text = digits.slice(0, n) + "." + digits.slice(n);
  else if (-4 < n && n <= 0) text = "0." + "0".repeat(-n) + digits;
  else {
    const e = n - 1;
    text = digits[0] + (k > 1 ? "." + digits.slice(1) : "") + "e" + (e < 0 ? "-" : "+") + String(Math.abs(e)).padStart(2, "0");
  }
  text = sign + text;
  for (let i = 0; i < text.length; i++) HEAPU8[out + i] = text.charCodeAt(i);
  return text.length;
});

namespace blockscope::detail {

std::string shortest_text(double d) {
  char text[32];  // at most "-" + 17 digits + "." + "e-308": 25
  return std::string(text, static_cast<size_t>(blockscope_js_shortest_text(d, text)));
}

}  // namespace blockscope::detail
