// strtod for the WebAssembly build: the decimal is read by the JavaScript engine's Number(), which rounds
// correctly, as C requires of strtod and as JSON.parse does, so native and wasm builds read every number to the
// same double. It replaces musl's strtod, whose long-double arithmetic is emulated in software in WebAssembly
// (with float printf, 6.5-6.9 KB gzip of each flavour) for the few fractional numbers Blockscope reads: those in JSON configs and
// options, through nlohmann's parser, its one caller (integers go through strtoull). Decimal forms only: "inf",
// "nan" and hexadecimal floats are not numbers here (strtod returns 0 and sets *end = s), and JSON has none.
#include <emscripten/emscripten.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>

// The ASCII decimal text[0, length) as a double.
EM_JS(double, blockscope_js_number, (const char* text, int length), {
  let s = "";
  for (let i = 0; i < length; i++) s += String.fromCharCode(HEAPU8[text + i]);
  return Number(s);
});

namespace {
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
}  // namespace

extern "C" double strtod(const char* s, char** end) {
  // [space][sign]digits[.digits][(e|E)[sign]digits], with at least one digit before the exponent.
  const char* p = s;
  while (is_space(*p)) ++p;
  const char* start = p;
  if (*p == '+' || *p == '-') ++p;
  bool digits = false, nonzero = false;
  for (; is_digit(*p); ++p) digits = true, nonzero |= *p != '0';
  if (*p == '.')
    for (++p; is_digit(*p); ++p) digits = true, nonzero |= *p != '0';
  if (!digits) {
    if (end) *end = const_cast<char*>(s);
    return 0.0;
  }
  if (*p == 'e' || *p == 'E') {
    const char* q = p + 1;
    if (*q == '+' || *q == '-') ++q;
    if (is_digit(*q)) {
      while (is_digit(*q)) ++q;
      p = q;
    }
  }
  if (end) *end = const_cast<char*>(p);
  const double value = blockscope_js_number(start, static_cast<int>(p - start));
  if (value == HUGE_VAL || value == -HUGE_VAL || (value == 0.0 && nonzero)) errno = ERANGE;  // as C's strtod
  return value;
}

// libc++'s std::stof and std::stold (in the same library object as std::to_string, which Blockscope uses) refer to
// these two, and musl defines all three in one object: without them here, the linker would bring musl's strtod
// back. Blockscope never calls either. strtof rounds twice (decimal -> double -> float), which can differ from a
// correctly rounded strtof in the last bit for decimals within 2^-54 (relative) of the midpoint between two floats;
// strtold returns the double (WebAssembly's long double is 128-bit).
extern "C" float strtof(const char* s, char** end) { return static_cast<float>(strtod(s, end)); }
extern "C" long double strtold(const char* s, char** end) { return strtod(s, end); }
